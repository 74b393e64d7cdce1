-- simhash_agg: the fingerprint of features stored as rows. Rows with a NULL
-- feature or weight are skipped; no counted row gives NULL. Parallel plans
-- merge exact integer partial votes.
CREATE FUNCTION @extschema@.simhash_agg_text_transfn(pg_catalog.internal, pg_catalog.text, pg_catalog.float8)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_bigint_transfn(pg_catalog.internal, pg_catalog.int8, pg_catalog.float8)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_finalfn(pg_catalog.internal) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_combinefn(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_serialfn(pg_catalog.internal) RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_deserialfn(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE @extschema@.simhash_agg(feature pg_catalog.text, weight pg_catalog.float8) (
    SFUNC = @extschema@.simhash_agg_text_transfn,
    STYPE = pg_catalog.internal,
    SSPACE = 1200,
    FINALFUNC = @extschema@.simhash_agg_finalfn,
    COMBINEFUNC = @extschema@.simhash_agg_combinefn,
    SERIALFUNC = @extschema@.simhash_agg_serialfn,
    DESERIALFUNC = @extschema@.simhash_agg_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(pg_catalog.text, pg_catalog.float8)
    IS 'fingerprint of weighted text features given as rows (hashed like simhash(text[]))';

CREATE AGGREGATE @extschema@.simhash_agg(hash pg_catalog.int8, weight pg_catalog.float8) (
    SFUNC = @extschema@.simhash_agg_bigint_transfn,
    STYPE = pg_catalog.internal,
    SSPACE = 1200,
    FINALFUNC = @extschema@.simhash_agg_finalfn,
    COMBINEFUNC = @extschema@.simhash_agg_combinefn,
    SERIALFUNC = @extschema@.simhash_agg_serialfn,
    DESERIALFUNC = @extschema@.simhash_agg_deserialfn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(pg_catalog.int8, pg_catalog.float8)
    IS 'fingerprint of weighted pre-computed 64-bit feature hashes given as rows';
