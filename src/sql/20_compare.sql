-- Equality and unsigned order: B-tree and hash operator classes, so UNIQUE,
-- GROUP BY, DISTINCT, ORDER BY, hash joins and merge joins work.
CREATE FUNCTION @extschema@.simhash64_eq(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_ne(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_lt(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_le(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_gt(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_ge(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.bool
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_cmp(@extschema@.simhash64, @extschema@.simhash64) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_sortsupport(pg_catalog.internal) RETURNS pg_catalog.void
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash64_hash(@extschema@.simhash64) RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash64_hash_extended(@extschema@.simhash64, pg_catalog.int8) RETURNS pg_catalog.int8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash64_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash64_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash64_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash64_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash64_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.simhash64, RIGHTARG = @extschema@.simhash64,
    FUNCTION = @extschema@.simhash64_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.simhash64_ops
    DEFAULT FOR TYPE @extschema@.simhash64 USING btree AS
        OPERATOR 1 @extschema@.< ,
        OPERATOR 2 @extschema@.<= ,
        OPERATOR 3 @extschema@.= ,
        OPERATOR 4 @extschema@.>= ,
        OPERATOR 5 @extschema@.> ,
        FUNCTION 1 @extschema@.simhash64_cmp(@extschema@.simhash64, @extschema@.simhash64),
        FUNCTION 2 @extschema@.simhash64_sortsupport(pg_catalog.internal),
        FUNCTION 4 pg_catalog.btequalimage(pg_catalog.oid);

CREATE OPERATOR CLASS @extschema@.simhash64_ops
    DEFAULT FOR TYPE @extschema@.simhash64 USING hash AS
        OPERATOR 1 @extschema@.= ,
        FUNCTION 1 @extschema@.simhash64_hash(@extschema@.simhash64),
        FUNCTION 2 @extschema@.simhash64_hash_extended(@extschema@.simhash64, pg_catalog.int8);
