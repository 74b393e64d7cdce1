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
