-- simhash_ball and the containment operators fp <@ ball / ball @> fp.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- text form: center / radius; input takes upper case and 0x like simhash64
SELECT '0123456789abcdef/3'::simhash_ball AS plain,
       '0X0123456789ABCDEF/03'::simhash_ball AS prefixed,
       'ffffffffffffffff/64'::simhash_ball AS widest,
       '0000000000000000/0'::simhash_ball AS point;
-- constructor and accessors
SELECT simhash_ball('0123456789abcdef', 3) AS ball,
       simhash_ball_center('0123456789abcdef/3') AS center,
       simhash_ball_radius('0123456789abcdef/3') AS radius,
       simhash_ball(simhash_ball_center(b), simhash_ball_radius(b))::text = b::text AS round_trip
FROM (VALUES ('8000000000000001/17'::simhash_ball)) t(b);
-- binary form: center (8 bytes) then radius (4 bytes)
SELECT simhash_ball_send('0123456789abcdef/3') AS wire;

-- radius outside 0..64: 22023; anything else malformed: 22P02 quoting the input
SELECT q, pg_temp.error_of(q) FROM (VALUES
  ($$SELECT '0123456789abcdef/65'::simhash_ball$$),
  ($$SELECT '0123456789abcdef/-1'::simhash_ball$$),
  ($$SELECT '0123456789abcdef/99999999999999999999'::simhash_ball$$),
  ($$SELECT simhash_ball('0123456789abcdef', 65)$$),
  ($$SELECT simhash_ball('0123456789abcdef', -1)$$),
  ($$SELECT ''::simhash_ball$$),
  ($$SELECT '0123456789abcdef'::simhash_ball$$),
  ($$SELECT '0123456789abcdef/'::simhash_ball$$),
  ($$SELECT '0123456789abcdef/3 '::simhash_ball$$),
  ($$SELECT '0123456789abcdef/3/4'::simhash_ball$$),
  ($$SELECT '0123456789abcdef/x'::simhash_ball$$),
  ($$SELECT '0123456789abcde/3'::simhash_ball$$),
  ($$SELECT '0123456789abcdeg/3'::simhash_ball$$)) t(q);
\set VERBOSITY default
SELECT '0123456789abcdef/65'::simhash_ball;
SELECT simhash_ball('0123456789abcdef', 65);
SELECT '0123456789abcdeg/3'::simhash_ball;

-- <@ and @> agree with hamming_distance and simhash_within at every radius
SELECT count(*) AS checked,
       count(*) FILTER (WHERE (fp <@ simhash_ball(q, k)) <> (hamming_distance(fp, q) <= k)) AS in_ball_wrong,
       count(*) FILTER (WHERE (simhash_ball(q, k) @> fp) <> (fp <@ simhash_ball(q, k))) AS commutator_wrong,
       count(*) FILTER (WHERE (fp <@ simhash_ball(q, k)) <> simhash_within(fp, q, k)) AS within_wrong
FROM (SELECT ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash64 AS fp FROM generate_series(1, 50) i) a,
     (VALUES ('0000000000000000'::simhash64), ('ffffffffffffffff'), ('0123456789abcdef')) b(q),
     generate_series(0, 64) k;
-- the edges: radius 0 is equality, radius 64 contains everything
SELECT '0123456789abcdef'::simhash64 <@ '0123456789abcdef/0' AS same_in_point,
       '0123456789abcdee'::simhash64 <@ '0123456789abcdef/0' AS neighbour_not_in_point,
       'ffffffffffffffff'::simhash64 <@ '0000000000000000/64' AS all_in_widest,
       'ffffffffffffffff'::simhash64 <@ '0000000000000000/63' AS opposite_not_in_63,
       '0000000000000007/3'::simhash_ball @> '0000000000000000'::simhash64 AS contains_3,
       '0000000000000007/2'::simhash_ball @> '0000000000000000'::simhash64 AS contains_2;
-- commutators are registered both ways
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, c.oprname AS commutator, o.oprrest
FROM pg_operator o JOIN pg_operator c ON c.oid = o.oprcom
WHERE o.oprleft IN ('simhash_ball'::regtype, 'simhash64'::regtype)
  AND o.oprright IN ('simhash_ball'::regtype, 'simhash64'::regtype)
  AND o.oprname IN ('<@', '@>') ORDER BY 1;
-- STRICT: NULL in, NULL out
SELECT NULL::simhash64 <@ '0000000000000000/3' IS NULL AS in_null,
       '0000000000000000'::simhash64 <@ NULL::simhash_ball IS NULL AS ball_null,
       simhash_ball(NULL, 3) IS NULL AS center_null, simhash_ball('0000000000000000', NULL) IS NULL AS radius_null;

-- a stored ball survives a table round trip and COPY BINARY
CREATE TABLE balls (b simhash_ball);
INSERT INTO balls VALUES ('0123456789abcdef/3'), ('ffffffffffffffff/64'), ('8000000000000000/0');
\copy balls TO 'results/ball_copy.bin' (FORMAT binary)
CREATE TABLE balls_copy (b simhash_ball);
\copy balls_copy FROM 'results/ball_copy.bin' (FORMAT binary)
SELECT b FROM balls_copy ORDER BY simhash_ball_radius(b);
-- binary input comes from the wire: a bytea column's binary form is its raw
-- bytes, so COPY BINARY can deliver any 12 bytes to simhash_ball_recv.
CREATE TABLE raw_balls (n int4, b bytea);
INSERT INTO raw_balls VALUES (1, '\x0123456789abcdef00000003'), (2, '\x0123456789abcdef00000041'),
                             (3, '\x0123456789abcdefffffffff'), (4, '\x0123456789');
\copy (SELECT b FROM raw_balls WHERE n = 1) TO 'results/ball_raw1.bin' (FORMAT binary)
\copy (SELECT b FROM raw_balls WHERE n = 2) TO 'results/ball_raw2.bin' (FORMAT binary)
\copy (SELECT b FROM raw_balls WHERE n = 3) TO 'results/ball_raw3.bin' (FORMAT binary)
\copy (SELECT b FROM raw_balls WHERE n = 4) TO 'results/ball_raw4.bin' (FORMAT binary)
TRUNCATE balls_copy;
\copy balls_copy FROM 'results/ball_raw1.bin' (FORMAT binary)
SELECT b FROM balls_copy;
-- radius 65 and -1: 22023; a message that is too short: refused as bad binary
-- data (22P03, as simhash64_recv does), not misread
\set VERBOSITY sqlstate
\copy balls_copy FROM 'results/ball_raw2.bin' (FORMAT binary)
\copy balls_copy FROM 'results/ball_raw3.bin' (FORMAT binary)
\copy balls_copy FROM 'results/ball_raw4.bin' (FORMAT binary)
\set VERBOSITY default
\copy balls_copy FROM 'results/ball_raw2.bin' (FORMAT binary)
\copy balls_copy FROM 'results/ball_raw4.bin' (FORMAT binary)
SELECT count(*) AS still_one FROM balls_copy;
DROP TABLE balls, balls_copy, raw_balls;
