-- Explicit casts of simhash64: bigint, bit(64), bytea, and base32 text.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- bigint, two's complement, both ways, at the edges
SELECT b, b::simhash64 AS fp, b::simhash64::bigint = b AS round_trip
FROM (VALUES (0::bigint), (1), (-1), (9223372036854775807), (-9223372036854775808)) t(b);
SELECT fp, fp::bigint AS b, fp::bigint::simhash64 = fp AS round_trip
FROM (VALUES ('0000000000000000'::simhash64), ('ffffffffffffffff'),
             ('7fffffffffffffff'), ('8000000000000000'), ('0123456789abcdef')) t(fp);
-- binary-coercible: no function in pg_cast, and never implicit
SELECT castsource::regtype, casttarget::regtype, castfunc::regproc, castcontext, castmethod
FROM pg_cast WHERE castsource = 'simhash64'::regtype OR casttarget = 'simhash64'::regtype
ORDER BY 1::text, 2::text;
-- explicit only: no silent use of bigint operators on fingerprints
SELECT pg_temp.error_of($$SELECT '0000000000000001'::simhash64 + 1$$);
SELECT pg_temp.error_of($$SELECT 1::bigint = '0000000000000001'::simhash64$$);

-- bit(64): the first bit is the most significant, exactly like bigint::bit(64)
SELECT fp, fp::bit(64) AS bits, fp::bit(64)::simhash64 = fp AS round_trip,
       fp::bit(64) = fp::bigint::bit(64) AS same_as_bigint
FROM (VALUES ('0000000000000000'::simhash64), ('ffffffffffffffff'),
             ('8000000000000000'), ('0000000000000001'), ('0123456789abcdef')) t(fp);
SELECT B'1000000000000000000000000000000000000000000000000000000000000000'::simhash64 AS msb,
       (B'1' || repeat('0', 62)::bit(62) || B'1')::bit(64)::simhash64 AS msb_and_lsb,
       bit_count('00000000000000ff'::simhash64::bit(64)) AS popcount;
-- other lengths: 22023 naming the length (no truncation, no padding)
SELECT q, pg_temp.error_of(q) FROM (VALUES
  ($$SELECT B'101'::simhash64$$),
  ($$SELECT B''::simhash64$$),
  ($$SELECT repeat('1', 65)::bit(65)::simhash64$$),
  ($$SELECT '0123456789abcdef'::simhash64::bit$$),
  ($$SELECT '0123456789abcdef'::simhash64::bit(63)$$),
  ($$SELECT '0123456789abcdef'::simhash64::bit(65)$$)) t(q);
\set VERBOSITY default
SELECT B'101'::simhash64;
SELECT '0123456789abcdef'::simhash64::bit;

-- bytea: 8 bytes, most significant first, the same bytes as the binary send form
SELECT fp, fp::bytea AS bytes, fp::bytea::simhash64 = fp AS round_trip,
       fp::bytea = simhash64_send(fp) AS same_as_send
FROM (VALUES ('0000000000000000'::simhash64), ('ffffffffffffffff'),
             ('8000000000000000'), ('0123456789abcdef')) t(fp);
SELECT '\x8000000000000001'::bytea::simhash64 AS fp;
SELECT q, pg_temp.error_of(q) FROM (VALUES
  ($$SELECT '\x'::bytea::simhash64$$),
  ($$SELECT '\x01234567'::bytea::simhash64$$),
  ($$SELECT '\x0123456789abcdef01'::bytea::simhash64$$)) t(q);
SELECT '\x0123456789abcdef01'::bytea::simhash64;

-- base32 (RFC 4648 alphabet, 13 characters, no padding, lower case out)
SELECT fp, simhash_to_base32(fp) AS b32, simhash_from_base32(simhash_to_base32(fp)) = fp AS round_trip
FROM (VALUES ('0000000000000000'::simhash64), ('ffffffffffffffff'), ('8000000000000000'),
             ('0000000000000001'), ('666f6f6261724142'), ('0123456789abcdef')) t(fp);
-- "foobarAB" as 8 big-endian bytes; input in either case
SELECT simhash_from_base32('mzxw6ytbojaue') AS lower, simhash_from_base32('MZXW6YTBOJAUE') AS upper,
       encode(simhash_from_base32('mzxw6ytbojaue')::bytea, 'escape') AS bytes;
-- wrong number of characters: 22023; characters outside the alphabet, padding,
-- or a last character with its unused bit set: 22P02; the input is quoted
SELECT q, pg_temp.error_of(q) FROM (VALUES
  ($$SELECT simhash_from_base32('')$$),
  ($$SELECT simhash_from_base32('mzxw6ytbojau')$$),
  ($$SELECT simhash_from_base32('mzxw6ytbojauea')$$),
  ($$SELECT simhash_from_base32('mzxw6ytbojau1')$$),
  ($$SELECT simhash_from_base32('mzxw6ytbojaue===')$$),
  ($$SELECT simhash_from_base32(' mzxw6ytbojaue')$$),
  ($$SELECT simhash_from_base32('mzxw6ytbojauf')$$)) t(q);
SELECT simhash_from_base32('mzxw6ytbojauf');

-- STRICT: NULL in, NULL out
SELECT NULL::bigint::simhash64 IS NULL AS from_bigint, NULL::bit(64)::simhash64 IS NULL AS from_bit,
       NULL::bytea::simhash64 IS NULL AS from_bytea, simhash_from_base32(NULL) IS NULL AS from_base32,
       simhash_to_base32(NULL) IS NULL AS to_base32;
