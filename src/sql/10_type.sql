-- simhash--1.0.sql: the install script, assembled from src/sql/*.sql in name order.
-- Every reference to an object of this extension is qualified with @extschema@
-- and every built-in with pg_catalog, so no search_path can redirect them.
\echo Use "CREATE EXTENSION simhash" to load this file. \quit

-- The simhash64 type: a 64-bit fingerprint, 16 hex digits in text.
CREATE TYPE @extschema@.simhash64;

CREATE FUNCTION @extschema@.simhash64_in(pg_catalog.cstring) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_out(@extschema@.simhash64) RETURNS pg_catalog.cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_recv(pg_catalog.internal) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_send(@extschema@.simhash64) RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.simhash64 (
    INPUT = @extschema@.simhash64_in,
    OUTPUT = @extschema@.simhash64_out,
    RECEIVE = @extschema@.simhash64_recv,
    SEND = @extschema@.simhash64_send,
    INTERNALLENGTH = 8,
    PASSEDBYVALUE,
    ALIGNMENT = double,
    STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash64 IS '64-bit SimHash fingerprint';
