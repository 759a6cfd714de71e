SELECT id FROM docs_gin WHERE terms @> '{c1}'::text[];
