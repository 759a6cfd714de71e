SELECT count(*) FROM docs_gin WHERE terms @> '{c10}'::text[];
