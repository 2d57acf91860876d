-- bench/sqlite-work.sql -- what bench/perf.sh has the SQLite shell do under
-- perf record: a table of 400,000 rows built, indexed, grouped, joined,
-- searched, updated and deleted from, in memory (about a second).
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d INTEGER);
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i < 400000)
INSERT INTO t SELECT i, printf('name-%d-%x', i*7919 % 100003, i), i*0.37, i % 977 FROM r;
CREATE INDEX tb ON t(b);
CREATE INDEX td ON t(d, c);
SELECT d, count(*), sum(c), max(b) FROM t GROUP BY d ORDER BY 3 DESC LIMIT 5;
SELECT count(*) FROM t x JOIN t y ON x.d = y.d AND y.a < x.a + 3 WHERE x.a % 13 = 0;
SELECT b, length(b) FROM t WHERE b LIKE 'name-1%' ORDER BY b LIMIT 3;
SELECT sum(length(group_concat)) FROM (SELECT group_concat(b) AS group_concat FROM t GROUP BY a % 1000);
UPDATE t SET c = c * 1.5 WHERE d < 100;
DELETE FROM t WHERE a % 5 = 0;
SELECT count(*), avg(c) FROM t;
