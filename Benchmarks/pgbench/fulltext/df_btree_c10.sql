SELECT count(*) FROM terms WHERE term = 'c10';
