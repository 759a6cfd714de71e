SELECT t0.id FROM terms t0, terms t1 WHERE t0.term = 'c1' AND t1.term = 'c10' AND t1.id = t0.id;
