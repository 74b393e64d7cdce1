-- Explicit casts, bit-exact both ways.
-- bigint: the same 8 bytes passed by value with the same alignment, so the
-- cast is binary-coercible (two's complement: ffffffffffffffff is -1). Being
-- explicit (no AS clause: the default), it never lets bigint operators apply
-- to simhash64 silently.
CREATE CAST (pg_catalog.int8 AS @extschema@.simhash64) WITHOUT FUNCTION;
CREATE CAST (@extschema@.simhash64 AS pg_catalog.int8) WITHOUT FUNCTION;

-- bit(64): the first bit is the most significant, as in bigint::bit(64).
CREATE FUNCTION @extschema@.simhash64_from_bit(pg_catalog.bit) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_to_bit(@extschema@.simhash64, pg_catalog.int4, pg_catalog.bool) RETURNS pg_catalog.bit
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (pg_catalog.bit AS @extschema@.simhash64)
    WITH FUNCTION @extschema@.simhash64_from_bit(pg_catalog.bit);
CREATE CAST (@extschema@.simhash64 AS pg_catalog.bit)
    WITH FUNCTION @extschema@.simhash64_to_bit(@extschema@.simhash64, pg_catalog.int4, pg_catalog.bool);

-- bytea: 8 bytes, most significant first (the binary send form).
CREATE FUNCTION @extschema@.simhash64_from_bytea(pg_catalog.bytea) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_to_bytea(@extschema@.simhash64) RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE CAST (pg_catalog.bytea AS @extschema@.simhash64)
    WITH FUNCTION @extschema@.simhash64_from_bytea(pg_catalog.bytea);
CREATE CAST (@extschema@.simhash64 AS pg_catalog.bytea)
    WITH FUNCTION @extschema@.simhash64_to_bytea(@extschema@.simhash64);

-- RFC 4648 base32 text: 13 lower-case characters, no padding.
CREATE FUNCTION @extschema@.simhash_to_base32(@extschema@.simhash64) RETURNS pg_catalog.text
    AS 'MODULE_PATHNAME', 'simhash64_to_base32' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_to_base32(@extschema@.simhash64)
    IS 'RFC 4648 base32 of the 8 big-endian bytes, 13 lower-case characters';
CREATE FUNCTION @extschema@.simhash_from_base32(pg_catalog.text) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash64_from_base32' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_from_base32(pg_catalog.text)
    IS 'a fingerprint from 13 base32 characters (either case)';
