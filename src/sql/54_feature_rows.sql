-- What a document contributes to simhash(text): one row per distinct feature.
CREATE FUNCTION @extschema@.simhash_features(document pg_catalog.text,
                                             tokens pg_catalog.text DEFAULT 'words',
                                             shingle pg_catalog.int4 DEFAULT NULL,
                                             weighting pg_catalog.text DEFAULT 'tf',
                                             stop_words pg_catalog.text DEFAULT NULL,
                                             html pg_catalog.bool DEFAULT false,
                                             seed pg_catalog.int8 DEFAULT 0)
    RETURNS TABLE (feature pg_catalog.text, hash pg_catalog.int8, weight pg_catalog.float8)
    AS 'MODULE_PATHNAME', 'simhash_features_text' LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 200;
COMMENT ON FUNCTION @extschema@.simhash_features(pg_catalog.text, pg_catalog.text, pg_catalog.int4, pg_catalog.text,
                                                 pg_catalog.text, pg_catalog.bool, pg_catalog.int8)
    IS 'the features simhash(document, ...) votes with: feature, its 64-bit hash, its weight, in order of first occurrence';
