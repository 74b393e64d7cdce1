-- Functions of the index benchmark (test/bench/index_bench.sh): data
-- generators and a server-side timer of prepared statements.
CREATE EXTENSION IF NOT EXISTS simhash;

-- 64 pseudo-random bits from two 32-bit hashes of g.
CREATE FUNCTION rnd64(g bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (hashint8(g)::bigint << 32) | (hashint8(-g - 1)::bigint & 4294967295) $$;

-- Near-duplicate families of 20: one in ten rows is the family's center
-- itself, the others differ from it in 2 bits, or 4 for every third row.
-- (One expression with no FROM, so that the planner inlines it: as a
-- function called per row it took 10 minutes to load 10M rows.)
CREATE FUNCTION clustered64(g bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT rnd64(10000000000000 + g / 20)
         # CASE WHEN g % 10 = 0 THEN 0
           ELSE (1::bigint << (rnd64(g) & 63)::int) # (1::bigint << ((rnd64(g) >> 6) & 63)::int)
                # CASE WHEN g % 3 = 0 THEN (1::bigint << ((rnd64(g) >> 12) & 63)::int) # (1::bigint << ((rnd64(g) >> 18) & 63)::int) ELSE 0 END
           END $$;

CREATE FUNCTION flip(v bigint, h bigint, nbits int) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT v # coalesce((SELECT bit_or(1::bigint << ((h >> (6 * i)) & 63)::int) FROM generate_series(0, nbits - 1) i), 0) $$;

CREATE TABLE bench_result (dataset text, n bigint, metric text, value float8, PRIMARY KEY (dataset, n, metric));

-- Runs prepared statement `stmt` (one bigint parameter, returning one count)
-- once per query value; returns the median and 90th percentile in ms and the
-- mean count (the same for every exact method: a cross-check).
CREATE FUNCTION bench_run(stmt text, qs bigint[], OUT median_ms float8, OUT p90_ms float8, OUT mean_rows float8)
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  ts float8[] := ARRAY[]::float8[];
  c bigint;
  total bigint := 0;
  q bigint;
BEGIN
  FOREACH q IN ARRAY qs LOOP
    t0 := clock_timestamp();
    EXECUTE format('EXECUTE %I(%s)', stmt, q) INTO c;
    ts := ts || extract(epoch FROM clock_timestamp() - t0)::float8 * 1000;
    total := total + c;
  END LOOP;
  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.9) WITHIN GROUP (ORDER BY x)
    INTO median_ms, p90_ms FROM unnest(ts) x;
  mean_rows := total::float8 / cardinality(qs);
END $$;

-- Wall time of one statement (an index build), in ms.
CREATE FUNCTION bench_ddl(sql text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE sql;
  RETURN extract(epoch FROM clock_timestamp() - t0)::float8 * 1000;
END $$;

CREATE FUNCTION bench_put(dataset text, n bigint, metric text, value float8) RETURNS void LANGUAGE sql AS $$
  INSERT INTO bench_result VALUES (dataset, n, metric, value)
  ON CONFLICT (dataset, n, metric) DO UPDATE SET value = excluded.value $$;
