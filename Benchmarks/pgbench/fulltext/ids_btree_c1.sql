SELECT t0.id FROM terms t0 WHERE t0.term = 'c1';
