-- The full-text postings of a bulk write of 50,000 documents of 5 terms, two ways, and the
-- reads a ranked `matches` makes of each: the store's row per (term, document) under a
-- B-tree with a row of terms per document, against each document's terms as an array under
-- PostgreSQL's GIN index. Run with psql on a throwaway database (docs/PostgreSQL.md):
--   psql -q -f Benchmarks/pgbench/postings-bulk.sql
\timing on
CREATE TEMPORARY TABLE source AS
  SELECT i AS id, ARRAY(SELECT DISTINCT t FROM unnest(ARRAY['message', (i % 100)::text, 'of', 'chat', ((i / 100) % 500)::text]) t) AS terms
  FROM generate_series(1, 50000) i;
CREATE TABLE bulk_terms (term text, id bigint, count bigint, PRIMARY KEY (term, id));
CREATE TABLE bulk_documents (id bigint PRIMARY KEY, length bigint, terms text);
CREATE TABLE bulk_gin (id bigint PRIMARY KEY, length bigint, terms text[]);
CREATE INDEX ON bulk_gin USING gin (terms);
\echo rows per term, sorted as the store sends them, and a row of terms per document
INSERT INTO bulk_terms SELECT t, id, 1 FROM source, unnest(terms) t ORDER BY t, id;
INSERT INTO bulk_documents SELECT id, 5, array_to_string(terms, ' ') FROM source;
\echo an array per document under GIN
INSERT INTO bulk_gin SELECT id, 5, terms FROM source;
VACUUM ANALYZE bulk_terms, bulk_documents, bulk_gin;
\echo documents holding a term (in 1% of them), rows then GIN, twice each
SELECT count(*) FROM bulk_terms WHERE term = '17';
SELECT count(*) FROM bulk_terms WHERE term = '17';
SELECT count(*) FROM bulk_gin WHERE terms @> ARRAY['17'];
SELECT count(*) FROM bulk_gin WHERE terms @> ARRAY['17'];
\echo documents holding a term in every one, rows then GIN
SELECT count(*) FROM bulk_terms WHERE term = 'message';
SELECT count(*) FROM bulk_gin WHERE terms @> ARRAY['message'];
DROP TABLE bulk_terms, bulk_documents, bulk_gin;
