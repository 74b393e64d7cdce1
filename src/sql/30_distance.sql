-- Hamming distance and the within-k predicate.
CREATE FUNCTION @extschema@.hamming_distance(a @extschema@.simhash64, b @extschema@.simhash64) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'simhash64_distance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.hamming_distance(@extschema@.simhash64, @extschema@.simhash64)
    IS 'number of differing bits (0..64)';

CREATE OPERATOR @extschema@.<-> (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.hamming_distance,
    COMMUTATOR = OPERATOR(@extschema@.<->)
);

CREATE FUNCTION @extschema@.simhash_similarity(a @extschema@.simhash64, b @extschema@.simhash64) RETURNS pg_catalog.float8
    AS 'MODULE_PATHNAME', 'simhash64_similarity' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_similarity(@extschema@.simhash64, @extschema@.simhash64)
    IS '1 - hamming_distance / 64';

CREATE FUNCTION @extschema@.simhash_within(a @extschema@.simhash64, b @extschema@.simhash64, k pg_catalog.int4) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME', 'simhash64_within' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_within(@extschema@.simhash64, @extschema@.simhash64, pg_catalog.int4)
    IS 'true when a and b differ in at most k bits (k in 0..64)';
