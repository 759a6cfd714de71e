SELECT id FROM docs_gin WHERE terms @> '{w40000}'::text[];
