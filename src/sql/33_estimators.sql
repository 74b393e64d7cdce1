-- Planner estimates for "within k bits" (src/pg/selectivity.cpp): without them
-- the planner guesses 1/3 of the rows for simhash_within() and 1/2 for <@.
CREATE FUNCTION @extschema@.simhash_ball_restrict_sel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int4)
    RETURNS pg_catalog.float8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_join_sel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int2, pg_catalog.internal)
    RETURNS pg_catalog.float8
    AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.simhash_within_support(pg_catalog.internal) RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER FUNCTION @extschema@.simhash_within(@extschema@.simhash64, @extschema@.simhash64, pg_catalog.int4)
    SUPPORT @extschema@.simhash_within_support;
