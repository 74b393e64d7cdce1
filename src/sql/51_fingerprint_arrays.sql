-- Fingerprints of features the caller chose: text features (hashed like
-- simhash(text) hashes its own) or pre-computed 64-bit hashes.
CREATE FUNCTION @extschema@.simhash(features pg_catalog.text[]) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_text_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(pg_catalog.text[])
    IS 'fingerprint of features of weight 1, each hashed with XXH3-64 (seed 0) over its UTF-8 bytes';

CREATE FUNCTION @extschema@.simhash(features pg_catalog.text[], weights pg_catalog.float8[]) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_text_array_weighted' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(pg_catalog.text[], pg_catalog.float8[])
    IS 'fingerprint of weighted features (one weight per feature, 0 <= weight < 2^31)';

CREATE FUNCTION @extschema@.simhash(hashes pg_catalog.int8[]) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_bigint_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(pg_catalog.int8[])
    IS 'fingerprint of pre-computed 64-bit feature hashes of weight 1 (seomoz/simhash-cpp compute())';

CREATE FUNCTION @extschema@.simhash(hashes pg_catalog.int8[], weights pg_catalog.float8[]) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_bigint_array_weighted' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(pg_catalog.int8[], pg_catalog.float8[])
    IS 'fingerprint of weighted pre-computed 64-bit feature hashes';
