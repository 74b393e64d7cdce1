-- Times every method on the loaded data set with prepared statements (generic
-- plans, checked below), after one untimed warm-up pass over the same queries.
-- psql variables: n, dataset, nq (queries per indexed method), nseq (per seqscan).
\set ON_ERROR_STOP 1
SET plan_cache_mode = force_generic_plan;
SET jit = off;

PREPARE simhash3(bigint) AS SELECT count(id) FROM bench WHERE fp <@ simhash_ball($1::simhash64, 3);
PREPARE simhash6(bigint) AS SELECT count(id) FROM bench WHERE fp6 <@ simhash_ball($1::simhash64, 6);
-- k = 6 on the default index (max_distance 3): probes beyond its radius, or a sweep
PREPARE simhash3at6(bigint) AS SELECT count(id) FROM bench WHERE fp <@ simhash_ball($1::simhash64, 6);
PREPARE pigeonhole3(bigint) AS SELECT count(id) FROM bench
  WHERE (((fpi >> 0) & 65535) = (($1 >> 0) & 65535) OR ((fpi >> 16) & 65535) = (($1 >> 16) & 65535)
      OR ((fpi >> 32) & 65535) = (($1 >> 32) & 65535) OR ((fpi >> 48) & 65535) = (($1 >> 48) & 65535))
    AND bit_count((fpi # $1)::bit(64)) <= 3;
PREPARE seq3(bigint) AS SELECT count(id) FROM bench WHERE bit_count((fpi # $1)::bit(64)) <= 3;
PREPARE seq6(bigint) AS SELECT count(id) FROM bench WHERE bit_count((fpi # $1)::bit(64)) <= 6;
PREPARE btree_eq(bigint) AS SELECT count(id) FROM bench WHERE fpi = $1;
-- the timer's own floor: a prepared statement that reads nothing
PREPARE noop(bigint) AS SELECT count(*) FROM (SELECT $1) s;
PREPARE knn(bigint) AS SELECT count(id) FROM (SELECT id FROM bench ORDER BY fp <-> $1::simhash64 LIMIT 10) s;
PREPARE knn_seq(bigint) AS SELECT count(id) FROM
  (SELECT id FROM bench ORDER BY bit_count((fpi # $1)::bit(64)) LIMIT 10) s;

-- the plans, for the log: each method must use the access path it names
\o :planlog
EXPLAIN (COSTS OFF) EXECUTE simhash3(0);
EXPLAIN (COSTS OFF) EXECUTE simhash6(0);
EXPLAIN (COSTS OFF) EXECUTE simhash3at6(0);
EXPLAIN (COSTS OFF) EXECUTE pigeonhole3(0);
EXPLAIN (COSTS OFF) EXECUTE seq3(0);
EXPLAIN (COSTS OFF) EXECUTE btree_eq(0);
EXPLAIN (COSTS OFF) EXECUTE knn(0);
EXPLAIN (COSTS OFF) EXECUTE knn_seq(0);
\o

CREATE TEMP TABLE runs (metric text, stmt text, kind text, nq int);
INSERT INTO runs VALUES
  ('floor', 'noop', 'near', :nq),
  ('simhash_k3', 'simhash3', 'near', :nq),
  ('pigeonhole_k3', 'pigeonhole3', 'near', :nq),
  ('simhash_k3_miss', 'simhash3', 'random', :nq),
  ('pigeonhole_k3_miss', 'pigeonhole3', 'random', :nq),
  ('btree_eq', 'btree_eq', 'stored', :nq),
  ('seq_k3', 'seq3', 'near', :nseq),
  ('simhash_k6', 'simhash6', 'near', :nq),
  ('simhash_k6_default', 'simhash3at6', 'near', :nq),
  ('seq_k6', 'seq6', 'near', :nseq),
  ('knn_planted', 'knn', 'center', :nq),
  ('knn_random', 'knn', 'random', :nseq),
  ('knn_seq_random', 'knn_seq', 'random', :nseq);

-- warm-up, then the timed pass
SELECT r.metric, (bench_run(r.stmt, (SELECT array_agg(q ORDER BY i) FROM bench_q WHERE kind = r.kind AND i <= r.nq))).mean_rows
  FROM runs r WHERE r.nq > 0 \g /dev/null
SELECT bench_put(:'dataset', :n, r.metric || '_ms', b.median_ms),
       bench_put(:'dataset', :n, r.metric || '_p90_ms', b.p90_ms),
       bench_put(:'dataset', :n, r.metric || '_rows', b.mean_rows)
  FROM runs r, LATERAL bench_run(r.stmt, (SELECT array_agg(q ORDER BY i) FROM bench_q WHERE kind = r.kind AND i <= r.nq)) b
  WHERE r.nq > 0 \g /dev/null

-- Exactness, query by query (the first :nseq of each kind): the rows of the
-- simhash index at k = 3 and 6 (both indexes) and of the pigeonhole at k = 3 against the
-- sequential scan's, and the ten nearest distances against a sort of all rows.
RESET plan_cache_mode;
CREATE TEMP TABLE exact AS
  SELECT q.kind, q.i, m.method,
         m.got IS NOT DISTINCT FROM m.want AS same
  FROM bench_q q, LATERAL (VALUES
    ('simhash k=3',
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE fp <@ simhash_ball(q.q::simhash64, 3)),
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE bit_count((fpi # q.q)::bit(64)) <= 3)),
    ('pigeonhole k=3',
     (SELECT array_agg(id ORDER BY id) FROM bench
       WHERE (((fpi >> 0) & 65535) = ((q.q >> 0) & 65535) OR ((fpi >> 16) & 65535) = ((q.q >> 16) & 65535)
           OR ((fpi >> 32) & 65535) = ((q.q >> 32) & 65535) OR ((fpi >> 48) & 65535) = ((q.q >> 48) & 65535))
         AND bit_count((fpi # q.q)::bit(64)) <= 3),
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE bit_count((fpi # q.q)::bit(64)) <= 3)),
    ('simhash k=6',
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE fp6 <@ simhash_ball(q.q::simhash64, 6)),
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE bit_count((fpi # q.q)::bit(64)) <= 6)),
    ('simhash k=6, default index',
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE fp <@ simhash_ball(q.q::simhash64, 6)),
     (SELECT array_agg(id ORDER BY id) FROM bench WHERE bit_count((fpi # q.q)::bit(64)) <= 6)),
    ('ORDER BY <-> LIMIT 10',
     (SELECT array_agg(d) FROM (SELECT fp <-> q.q::simhash64 AS d FROM bench ORDER BY fp <-> q.q::simhash64 LIMIT 10) s),
     (SELECT array_agg(d) FROM (SELECT bit_count((fpi # q.q)::bit(64))::int AS d FROM bench ORDER BY 1 LIMIT 10) s))
  ) AS m(method, got, want)
  WHERE q.kind IN ('near', 'random', 'center') AND q.i <= :nseq;
\o :planlog
-- (the index side of each check must use its index)
EXPLAIN (COSTS OFF) SELECT array_agg(id ORDER BY id) FROM bench WHERE fp <@ simhash_ball(1::bigint::simhash64, 3);
EXPLAIN (COSTS OFF) SELECT array_agg(id ORDER BY id) FROM bench WHERE fp <@ simhash_ball(1::bigint::simhash64, 6);
EXPLAIN (COSTS OFF) SELECT fp <-> 1::bigint::simhash64 FROM bench ORDER BY fp <-> 1::bigint::simhash64 LIMIT 10;
\o
SELECT bench_put(:'dataset', :n, 'exact_compared', count(*)),
       bench_put(:'dataset', :n, 'exact_differing', count(*) FILTER (WHERE NOT same))
  FROM exact \g /dev/null
