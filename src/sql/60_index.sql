-- The simhash index access method: exact within-k search and nearest
-- neighbours on block-permuted prefix tables (docs/index-design.md).
CREATE FUNCTION @extschema@.simhash_index_handler(pg_catalog.internal) RETURNS pg_catalog.index_am_handler
    AS 'MODULE_PATHNAME' LANGUAGE C;
CREATE ACCESS METHOD simhash TYPE INDEX HANDLER @extschema@.simhash_index_handler;
COMMENT ON ACCESS METHOD simhash IS 'exact near-duplicate search on simhash64 fingerprints';

CREATE OPERATOR CLASS @extschema@.simhash_ops
    DEFAULT FOR TYPE @extschema@.simhash64 USING simhash AS
        OPERATOR 1 @extschema@.<@ (@extschema@.simhash64, @extschema@.simhash_ball),
        OPERATOR 2 @extschema@.= (@extschema@.simhash64, @extschema@.simhash64),
        OPERATOR 3 @extschema@.<-> (@extschema@.simhash64, @extschema@.simhash64) FOR ORDER BY pg_catalog.integer_ops;

-- PARALLEL UNSAFE: heapallindexed takes a fresh snapshot, which a leader in
-- parallel mode may not.
CREATE FUNCTION @extschema@.simhash_index_check(index pg_catalog.regclass, heapallindexed pg_catalog.bool DEFAULT false)
    RETURNS pg_catalog.void
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_index_check(pg_catalog.regclass, pg_catalog.bool)
    IS 'verify a simhash index; with heapallindexed, that every heap row is in every table (raises XX002)';

CREATE FUNCTION @extschema@.simhash_index_info(index pg_catalog.regclass,
        OUT max_distance pg_catalog.int4, OUT tables pg_catalog.int4, OUT blocks pg_catalog.int4,
        OUT prefix_bits pg_catalog.int4,
        OUT pages pg_catalog.int8, OUT entries pg_catalog.int8, OUT dead_entries pg_catalog.int8,
        OUT longest_leaf_chain pg_catalog.int4, OUT height pg_catalog.int4)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simhash_index_info(pg_catalog.regclass)
    IS 'layout and size of a simhash index: prefix_bits is the shortest prefix a probe at max_distance fixes; entries over all tables, entries of rows no longer visible, longest run of leaves holding one fingerprint';
