SELECT id FROM docs_gin WHERE terms @> '{c1,c10}'::text[];
