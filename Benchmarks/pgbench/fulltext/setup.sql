-- N documents (psql variable n) of 8 words each, indexed two ways: the store's postings
-- (a row per term and document, keyed by term then id, and a row per document) and each
-- document's terms as one array under a GIN index (with and without its pending list).
-- c1 is in 1% of the documents, c10 in 10%, w0-w49999 skewed towards the low numbers.
CREATE TABLE terms (term text, id bigint, count bigint, PRIMARY KEY (term, id));
CREATE TABLE docs (id bigint PRIMARY KEY, length bigint, terms text);
CREATE TABLE docs_gin (id bigint PRIMARY KEY, length bigint, terms text[]);
CREATE TABLE docs_gin_nofu (id bigint PRIMARY KEY, length bigint, terms text[]);
CREATE TABLE src (id bigint, terms text[]);
INSERT INTO src SELECT i, array_agg(DISTINCT t ORDER BY t) FROM (
  SELECT i, CASE WHEN s = 1 AND random() < 0.01 THEN 'c1' WHEN s = 2 AND random() < 0.1 THEN 'c10'
                 ELSE 'w' || floor(50000 * random()^2)::int END AS t
  FROM generate_series(1, :n) AS i, generate_series(1, 8) AS s) AS x GROUP BY i;
INSERT INTO docs SELECT id, cardinality(terms), array_to_string(terms, ' ') FROM src;
INSERT INTO terms SELECT t, id, 1 FROM src, unnest(terms) AS t;
INSERT INTO docs_gin SELECT id, cardinality(terms), terms FROM src;
INSERT INTO docs_gin_nofu SELECT id, cardinality(terms), terms FROM src;
CREATE INDEX docs_gin_terms ON docs_gin USING gin (terms);
CREATE INDEX docs_gin_nofu_terms ON docs_gin_nofu USING gin (terms) WITH (fastupdate = off);
DROP TABLE src;
VACUUM ANALYZE;
