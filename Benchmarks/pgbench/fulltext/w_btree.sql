\set id random(100000000, 900000000000)
BEGIN;
WITH d AS (INSERT INTO docs (id, length, terms) VALUES (:id, 3, 'w1 w2 w3')) INSERT INTO terms (term, id, count) SELECT t, :id, 1 FROM unnest('{w17,w2300,w41000}'::text[]) AS t;
COMMIT;
