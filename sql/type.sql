-- simhash64: text form, binary form, unsigned order.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

SELECT '0123456789abcdef'::simhash64 AS lower,
       '0123456789ABCDEF'::simhash64 AS upper,
       '0x0123456789abcdef'::simhash64 AS prefixed,
       '0XFFFFFFFFFFFFFFFF'::simhash64 AS all_ones;

-- bad text input: SQLSTATE 22P02 and a message that quotes the input
SELECT q, pg_temp.error_of(q) FROM (VALUES
  ($$SELECT ''::simhash64$$),
  ($$SELECT 'abc'::simhash64$$),
  ($$SELECT '0123456789abcdef0'::simhash64$$),
  ($$SELECT '0123456789abcdeg'::simhash64$$),
  ($$SELECT '0123456789abcdef junk'::simhash64$$),
  ($$SELECT ' 0123456789abcdef'::simhash64$$),
  ($$SELECT '0x'::simhash64$$)) t(q);
-- with its detail
SELECT '0123456789abcdeg'::simhash64;

-- binary send/receive
SELECT simhash64_send('0123456789abcdef') AS wire;

-- unsigned order: 8000... sorts after 7fff...
SELECT v FROM (VALUES ('8000000000000000'::simhash64), ('7fffffffffffffff'),
                      ('0000000000000000'), ('ffffffffffffffff')) t(v) ORDER BY v;

-- binary receive through COPY (FORMAT binary): a round trip keeps every bit,
-- and a field that is not 8 bytes is refused cleanly (22P03), never misread.
-- The file is written and read by psql, so the server needs no file access.
CREATE TABLE copy_src (fp simhash64, n int4, wide uuid);
INSERT INTO copy_src VALUES ('0000000000000000', 1, '00000000-0000-0000-0000-000000000001'),
                            ('ffffffffffffffff', 2, '00000000-0000-0000-0000-000000000002'),
                            ('8000000000000000', 3, '00000000-0000-0000-0000-000000000003'),
                            (NULL, 4, NULL);
\copy copy_src TO 'results/type_copy.bin' (FORMAT binary)
CREATE TABLE copy_dst (fp simhash64, n int4, wide uuid);
\copy copy_dst FROM 'results/type_copy.bin' (FORMAT binary)
SELECT s.fp, d.fp, s.fp IS NOT DISTINCT FROM d.fp AS same FROM copy_src s JOIN copy_dst d USING (n) ORDER BY n;
-- a 4-byte int4 field and a 16-byte uuid field where a simhash64 is expected
CREATE TABLE copy_bad_narrow (fp simhash64, n simhash64, wide uuid);
\set VERBOSITY sqlstate
\copy copy_bad_narrow FROM 'results/type_copy.bin' (FORMAT binary)
\set VERBOSITY default
\copy copy_bad_narrow FROM 'results/type_copy.bin' (FORMAT binary)
CREATE TABLE copy_bad_wide (fp simhash64, n int4, wide simhash64);
\copy copy_bad_wide FROM 'results/type_copy.bin' (FORMAT binary)
SELECT count(*) AS nothing_loaded FROM copy_bad_narrow, copy_bad_wide;
DROP TABLE copy_src, copy_dst, copy_bad_narrow, copy_bad_wide;
