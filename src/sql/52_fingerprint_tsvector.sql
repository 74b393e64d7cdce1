-- Fingerprints of PostgreSQL text-search documents: stemming, stop words and
-- languages come from the text-search configuration.
CREATE FUNCTION @extschema@.simhash(document pg_catalog.tsvector) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_tsvector' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(pg_catalog.tsvector)
    IS 'fingerprint of the lexemes, each weighted by its number of positions (1 when stripped)';
