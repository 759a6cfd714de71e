\set id random(100000000, 900000000000)
BEGIN;
INSERT INTO docs_gin (id, length, terms) VALUES (:id, 3, '{w17,w2300,w41000}');
COMMIT;
