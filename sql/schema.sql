-- Schema safety: the extension installs into a schema the user names, and a
-- hostile search_path (a schema earlier in the path with objects of the same
-- names) redirects none of its casts, operator classes or functions.
-- The regression database already has the extension in public (REGRESS_OPTS),
-- so this runs in a database of its own.
SELECT current_database() AS regress_db \gset
SET client_min_messages = warning;
DROP DATABASE IF EXISTS simhash_schema_test;
RESET client_min_messages;
CREATE DATABASE simhash_schema_test;
\c simhash_schema_test

-- hostile objects, created before the extension, named like the built-ins
-- its install script uses
CREATE SCHEMA evil;
CREATE SCHEMA s;
CREATE DOMAIN evil.int8 AS numeric;
CREATE DOMAIN evil.int4 AS text;
CREATE DOMAIN evil.bool AS text;
CREATE DOMAIN evil.bytea AS text;
CREATE FUNCTION evil.hashint8(numeric) RETURNS int4 LANGUAGE sql AS 'SELECT 0';
SET search_path = evil, s, pg_catalog;
CREATE EXTENSION simhash SCHEMA s;
RESET search_path;

-- the extension's functions and operators refer to no evil object
SELECT count(*) AS evil_references
FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
JOIN pg_depend x ON x.classid = d.classid AND x.objid = d.objid
WHERE e.extname = 'simhash'
  AND ((x.refclassid = 'pg_type'::regclass AND x.refobjid IN (SELECT oid FROM pg_type WHERE typnamespace = 'evil'::regnamespace))
    OR (x.refclassid = 'pg_proc'::regclass AND x.refobjid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'evil'::regnamespace)));
-- every object of the extension lives in s
SELECT DISTINCT pg_describe_object(d.classid, d.objid, 0) LIKE '% s.%' OR pg_describe_object(d.classid, d.objid, 0) LIKE 's.%'
       OR pg_describe_object(d.classid, d.objid, 0) LIKE 'cast from %'
       OR pg_describe_object(d.classid, d.objid, 0) = 'access method simhash' AS in_s_or_a_cast
FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'simhash';
SELECT DISTINCT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON d.refobjid = e.oid WHERE e.extname = 'simhash';

-- not relocatable (its SQL names @extschema@), nothing SECURITY DEFINER
SELECT extname, extnamespace::regnamespace, extrelocatable FROM pg_extension WHERE extname = 'simhash';
SELECT count(*) AS security_definer
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON d.refobjid = e.oid WHERE e.extname = 'simhash' AND p.prosecdef;

-- after installation: shadows of the extension's own names, first in the path
CREATE FUNCTION evil.hamming_distance(s.simhash64, s.simhash64) RETURNS int4
    LANGUAGE sql AS 'SELECT 999';
CREATE FUNCTION evil.simhash64_eq(s.simhash64, s.simhash64) RETURNS bool LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION evil.simhash64_lt(s.simhash64, s.simhash64) RETURNS bool LANGUAGE sql AS 'SELECT false';
CREATE FUNCTION evil.simhash64_cmp(s.simhash64, s.simhash64) RETURNS int4 LANGUAGE sql AS 'SELECT 0';
CREATE FUNCTION evil.always(s.simhash64, s.simhash_ball) RETURNS bool LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR evil.= (LEFTARG = s.simhash64, RIGHTARG = s.simhash64, FUNCTION = evil.simhash64_eq);
CREATE OPERATOR evil.< (LEFTARG = s.simhash64, RIGHTARG = s.simhash64, FUNCTION = evil.simhash64_lt);
CREATE OPERATOR evil.<@ (LEFTARG = s.simhash64, RIGHTARG = s.simhash_ball, FUNCTION = evil.always);
CREATE FUNCTION evil.simhash64_from_bytea(bytea) RETURNS s.simhash64
    LANGUAGE sql AS $$SELECT 'ffffffffffffffff'::s.simhash64$$;
SET search_path = evil, s, pg_catalog;

-- casts come from pg_cast, not from the path
SELECT 'ffffffffffffffff'::simhash64::bigint AS to_bigint, (-2)::bigint::simhash64 AS from_bigint,
       '\x0123456789abcdef'::pg_catalog.bytea::simhash64 AS from_bytea,
       '8000000000000001'::simhash64::bit(64) AS to_bit, simhash_from_base32('mzxw6ytbojaue') AS base32;
-- sorting, grouping, DISTINCT, UNIQUE and joins use the operator classes
CREATE TABLE t (id pg_catalog.int4, fp simhash64);
INSERT INTO t VALUES (1, 'ffffffffffffffff'), (2, '0000000000000001'), (3, '8000000000000000'), (4, '0000000000000001');
SELECT fp FROM t ORDER BY fp;
SELECT count(DISTINCT fp) AS distinct_fps FROM t;
SELECT fp, count(*) FROM t GROUP BY fp ORDER BY fp;
-- duplicates are found, although evil.= calls every pair equal
CREATE UNIQUE INDEX ON t (fp);
CREATE TABLE u (fp simhash64 PRIMARY KEY);
INSERT INTO u VALUES ('0000000000000001');
\set VERBOSITY sqlstate
INSERT INTO u VALUES ('0000000000000001');
\set VERBOSITY default
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT t.id FROM t JOIN u ON t.fp OPERATOR(s.=) u.fp;
SELECT t.id FROM t JOIN u ON t.fp OPERATOR(s.=) u.fp ORDER BY t.id;
RESET enable_hashjoin;
RESET enable_nestloop;
-- the extension's operators, named by schema, and its functions
SELECT 'ffffffffffffffff'::simhash64 OPERATOR(s.<->) '0000000000000000' AS distance,
       s.hamming_distance('ffffffffffffffff', '0000000000000000') AS qualified_call,
       '0000000000000001'::simhash64 OPERATOR(s.<@) simhash_ball('0000000000000000', 0) AS in_ball,
       s.simhash_within('0000000000000001', '0000000000000000', 0) AS within;
-- (unqualified names in a query resolve to the path's first match, as for
-- any object: the user's own choice, which the extension cannot override)
SELECT hamming_distance('ffffffffffffffff', '0000000000000000') AS path_first,
       '0000000000000001'::simhash64 = 'ffffffffffffffff' AS path_first_eq;
-- the operator classes are made of the extension's operators
SELECT DISTINCT o.oprnamespace::regnamespace FROM pg_amop a JOIN pg_operator o ON o.oid = a.amopopr
JOIN pg_opfamily f ON f.oid = a.amopfamily WHERE f.opfname LIKE 'simhash%';

\c :regress_db
DROP DATABASE simhash_schema_test;
