-- Whole-table deduplication: all pairs within k bits among the rows of a query,
-- and the clusters (connected components) they form. The query runs with the
-- privileges of the caller (these functions are not SECURITY DEFINER); it must
-- be a read-only SELECT returning (key of any type, fingerprint simhash64 or
-- bigint). Keys come back as text (the key type's output form); rows with a
-- NULL fingerprint are skipped.
CREATE FUNCTION @extschema@.simhash_near_pairs(query pg_catalog.text, k pg_catalog.int4 DEFAULT 3,
                                               OUT key_a pg_catalog.text, OUT key_b pg_catalog.text,
                                               OUT distance pg_catalog.int4)
    RETURNS SETOF pg_catalog.record
    AS 'MODULE_PATHNAME', 'simhash_near_pairs' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_near_pairs(pg_catalog.text, pg_catalog.int4)
    IS 'every pair of rows of a (key, fingerprint) query within k bits, key_a before key_b in query order';

CREATE FUNCTION @extschema@.simhash_clusters(query pg_catalog.text, k pg_catalog.int4 DEFAULT 3,
                                             OUT key pg_catalog.text, OUT cluster_key pg_catalog.text,
                                             OUT cluster_size pg_catalog.int4,
                                             OUT distance_to_representative pg_catalog.int4)
    RETURNS SETOF pg_catalog.record
    AS 'MODULE_PATHNAME', 'simhash_clusters' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_clusters(pg_catalog.text, pg_catalog.int4)
    IS 'rows of a (key, fingerprint) query in near-duplicate clusters of two or more, with the first row of each cluster as its representative';
