-- Tables shaped like the benchmark store's (BenchModels) on PostgreSQL, for the scripts
-- beside this file: messages, their links, the full-text postings (a row of lengths per
-- document, a row per word, the totals) and the commit log.
CREATE TABLE m (id bigint PRIMARY KEY, text text, ts bigint);
CREATE TABLE author (owner bigint PRIMARY KEY, target bigint);
CREATE TABLE chatm (owner bigint, position bigint, target bigint, PRIMARY KEY (owner, position));
CREATE INDEX ON chatm (target);
CREATE TABLE terms (term text, id bigint, count bigint, PRIMARY KEY (term, id));
CREATE TABLE docs (id bigint PRIMARY KEY, length bigint, terms text);
CREATE TABLE totals (documents bigint, length bigint);
INSERT INTO totals VALUES (0, 0);
CREATE TABLE log (commit bigint, kind text, name text, id text, change text);
CREATE INDEX ON log (commit);
-- The same postings tables without indexes (unindexed.sql).
CREATE TABLE terms_unindexed (term text, id bigint, count bigint);
CREATE TABLE docs_unindexed (id bigint, length bigint, terms text);
-- Each document's distinct terms as an array under GIN (fused-gin.sql).
CREATE TABLE docs_gin (id bigint PRIMARY KEY, length bigint, terms text[]);
CREATE INDEX ON docs_gin USING gin (terms);
