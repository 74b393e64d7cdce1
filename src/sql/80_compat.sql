-- Compatibility with other SimHash implementations: their feature hashes.
CREATE FUNCTION @extschema@.simhash_feature_hash(feature pg_catalog.text, hash pg_catalog.text DEFAULT 'xxh3')
    RETURNS pg_catalog.int8
    AS 'MODULE_PATHNAME', 'simhash_feature_hash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_feature_hash(pg_catalog.text, pg_catalog.text)
    IS 'the 64-bit hash of a feature''s UTF-8 bytes: xxh3 (seed 0, the default) or jenkins (lookup3 hashlittle2, (c << 32) | b)';
