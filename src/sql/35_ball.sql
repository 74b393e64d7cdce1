-- simhash_ball: a center and a radius, the right side of "fp <@ ball". The
-- radius travels with the query, so an index or constraint on this operator
-- never changes meaning with a session setting.
CREATE TYPE @extschema@.simhash_ball;

CREATE FUNCTION @extschema@.simhash_ball_in(pg_catalog.cstring) RETURNS @extschema@.simhash_ball
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_out(@extschema@.simhash_ball) RETURNS pg_catalog.cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_recv(pg_catalog.internal) RETURNS @extschema@.simhash_ball
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_send(@extschema@.simhash_ball) RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.simhash_ball (
    INPUT = @extschema@.simhash_ball_in,
    OUTPUT = @extschema@.simhash_ball_out,
    RECEIVE = @extschema@.simhash_ball_recv,
    SEND = @extschema@.simhash_ball_send,
    INTERNALLENGTH = 16,
    ALIGNMENT = double,
    STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash_ball IS 'the fingerprints within a radius (0..64 bits) of a center';

CREATE FUNCTION @extschema@.simhash_ball(center @extschema@.simhash64, radius pg_catalog.int4)
    RETURNS @extschema@.simhash_ball
    AS 'MODULE_PATHNAME', 'simhash_ball_make' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_ball(@extschema@.simhash64, pg_catalog.int4)
    IS 'the ball of fingerprints within radius bits (0..64) of center';
CREATE FUNCTION @extschema@.simhash_ball_center(@extschema@.simhash_ball) RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_ball_radius(@extschema@.simhash_ball) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.simhash64_in_ball(@extschema@.simhash64, @extschema@.simhash_ball) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_ball_contains(@extschema@.simhash_ball, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR @extschema@.<@ (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash_ball,
    FUNCTION = @extschema@.simhash64_in_ball,
    COMMUTATOR = OPERATOR(@extschema@.@>),
    RESTRICT = @extschema@.simhash_ball_restrict_sel, JOIN = @extschema@.simhash_ball_join_sel
);
CREATE OPERATOR @extschema@.@> (
    LEFTARG = @extschema@.simhash_ball, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash_ball_contains,
    COMMUTATOR = OPERATOR(@extschema@.<@),
    RESTRICT = @extschema@.simhash_ball_restrict_sel, JOIN = @extschema@.simhash_ball_join_sel
);
