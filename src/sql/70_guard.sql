-- The near-duplicate guard: a trigger that refuses a row within k bits of
-- another row's fingerprint (docs/guard.md).
CREATE FUNCTION @extschema@.simhash_reject_near_duplicates() RETURNS trigger
    AS 'MODULE_PATHNAME', 'simhash_reject_near_duplicates' LANGUAGE C;
COMMENT ON FUNCTION @extschema@.simhash_reject_near_duplicates()
    IS 'BEFORE ROW trigger: rejects a fingerprint within k bits of another row''s (args: column, k = 3, key columns...)';

-- The name of the guard of column col: deterministic, so unguard finds it.
-- A name is cut at 63 bytes, so a longer one leads with a hash of the column
-- name: two long column names sharing their first 49 bytes get two guards.
CREATE FUNCTION @extschema@.simhash_guard_trigger_name(col pg_catalog.name) RETURNS pg_catalog.name
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN pg_catalog.octet_length(pg_catalog.concat('simhash_guard_', col)) <= 63
                THEN pg_catalog.concat('simhash_guard_', col)
                ELSE pg_catalog.concat('simhash_guard_', pg_catalog.left(pg_catalog.md5(col), 8), '_', col)
           END::pg_catalog.name;

-- The name of the guard of col on tbl, or NULL without one: a trigger of
-- simhash_reject_near_duplicates on col under the name above, or under the
-- plain 63-byte cut that earlier scripts gave long column names (so their
-- guards can still be replaced and removed).
CREATE FUNCTION @extschema@.simhash_guard_trigger(tbl pg_catalog.regclass, col pg_catalog.name)
    RETURNS pg_catalog.name LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    RETURN (SELECT t.tgname FROM pg_catalog.pg_trigger t
             WHERE t.tgrelid = tbl AND NOT t.tgisinternal AND t.tgparentid = 0
               AND t.tgname IN (@extschema@.simhash_guard_trigger_name(col),
                                pg_catalog.concat('simhash_guard_', col)::pg_catalog.name)
               AND t.tgfoid = '@extschema@.simhash_reject_near_duplicates()'::pg_catalog.regprocedure
               AND t.tgnargs > 0
               AND pg_catalog.convert_from(pg_catalog.substr(t.tgargs, 1,
                       pg_catalog.position(t.tgargs, '\x00'::pg_catalog.bytea) - 1),
                       pg_catalog.getdatabaseencoding()) = col
             ORDER BY t.tgname = @extschema@.simhash_guard_trigger_name(col) DESC
             LIMIT 1);

-- The partitioned table whose guard of col partition tbl carries as a clone
-- (the top of the chain of clones), or NULL.
CREATE FUNCTION @extschema@.simhash_guard_owner(tbl pg_catalog.regclass, col pg_catalog.name)
    RETURNS pg_catalog.regclass LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    RETURN (WITH RECURSIVE chain(parent, relid) AS (
                SELECT t.tgparentid, t.tgrelid FROM pg_catalog.pg_trigger t
                 WHERE t.tgrelid = tbl AND t.tgparentid <> 0
                   AND t.tgname = @extschema@.simhash_guard_trigger_name(col)
                   AND t.tgfoid = '@extschema@.simhash_reject_near_duplicates()'::pg_catalog.regprocedure
                UNION ALL
                SELECT p.tgparentid, p.tgrelid FROM pg_catalog.pg_trigger p JOIN chain c ON p.oid = c.parent)
            SELECT c.relid::pg_catalog.regclass FROM chain c WHERE c.parent = 0);

CREATE FUNCTION @extschema@.simhash_guard(tbl pg_catalog.regclass, col pg_catalog.name, max_distance pg_catalog.int4 DEFAULT 3)
    RETURNS void LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    col_attnum int2;
    existing pg_catalog.name;
    keys text;
    parent pg_catalog.regclass;
    relkind "char";
BEGIN
    SELECT c.relkind INTO relkind FROM pg_catalog.pg_class c WHERE c.oid = tbl;
    IF relkind IS NULL OR relkind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION 'simhash_guard: "%" is not a table', tbl USING ERRCODE = 'wrong_object_type';
    END IF;
    -- Triggers are cloned onto partitions, not onto inheritance children:
    -- rows written to a child would never be checked.
    IF relkind = 'r' AND EXISTS (SELECT FROM pg_catalog.pg_inherits i WHERE i.inhparent = tbl) THEN
        RAISE EXCEPTION 'simhash_guard: table "%" has inheritance children, which its guard would not check', tbl
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Use a partitioned table: its guard is cloned onto every partition.';
    END IF;
    IF max_distance IS NULL OR max_distance < 0 OR max_distance > 32 THEN
        RAISE EXCEPTION 'simhash_guard: maximum distance % is out of range', max_distance
            USING ERRCODE = 'invalid_parameter_value', HINT = 'The maximum distance is between 0 and 32.';
    END IF;
    SELECT a.attnum INTO col_attnum FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = tbl AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF col_attnum IS NULL THEN
        RAISE EXCEPTION 'simhash_guard: column "%" of relation "%" does not exist', col, tbl
            USING ERRCODE = 'undefined_column';
    END IF;
    -- (A domain over a domain ... over simhash64 too: the chain is followed.)
    IF NOT EXISTS (WITH RECURSIVE chain(oid, typtype, typbasetype) AS (
                       SELECT t.oid, t.typtype, t.typbasetype FROM pg_catalog.pg_type t
                        WHERE t.oid = (SELECT a.atttypid FROM pg_catalog.pg_attribute a
                                        WHERE a.attrelid = tbl AND a.attnum = col_attnum)
                       UNION ALL
                       SELECT t.oid, t.typtype, t.typbasetype FROM pg_catalog.pg_type t
                         JOIN chain c ON t.oid = c.typbasetype AND c.typtype = 'd')
                   SELECT FROM chain WHERE chain.typtype <> 'd'
                      AND chain.oid = '@extschema@.simhash64'::pg_catalog.regtype) THEN
        RAISE EXCEPTION 'simhash_guard: column "%" of relation "%" is not of type simhash64', col, tbl
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    -- The primary key names the existing row in the error.
    SELECT pg_catalog.string_agg(pg_catalog.quote_literal(a.attname), ', ' ORDER BY k.ord) INTO keys
      FROM pg_catalog.pg_index i
      CROSS JOIN LATERAL pg_catalog.unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
     WHERE i.indrelid = tbl AND i.indisprimary;

    -- A partition's clone of its parent's guard belongs to the parent.
    parent := @extschema@.simhash_guard_owner(tbl, col);
    IF parent IS NOT NULL THEN
        RAISE EXCEPTION 'simhash_guard: partition "%" is already guarded on column "%" by its partitioned table "%"',
                        tbl, col, parent
            USING ERRCODE = 'duplicate_object', HINT = 'Guard and unguard the partitioned table.';
    END IF;
    -- A trigger of the guard's name that is not col's guard (the user's own,
    -- or another column's) is left alone.
    existing := @extschema@.simhash_guard_trigger(tbl, col);
    IF EXISTS (SELECT FROM pg_catalog.pg_trigger t
                WHERE t.tgrelid = tbl AND t.tgname = @extschema@.simhash_guard_trigger_name(col))
       AND existing IS DISTINCT FROM @extschema@.simhash_guard_trigger_name(col) THEN
        RAISE EXCEPTION 'simhash_guard: relation "%" already has a trigger "%" that is not the guard of column "%"',
                        tbl, @extschema@.simhash_guard_trigger_name(col), col
            USING ERRCODE = 'duplicate_object';
    END IF;
    -- Guarding again replaces the guard (a new maximum distance).
    IF existing IS NOT NULL THEN
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', existing, tbl);
    END IF;
    EXECUTE pg_catalog.format(
        'CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW '
        'EXECUTE FUNCTION @extschema@.simhash_reject_near_duplicates(%s, %s%s)',
        @extschema@.simhash_guard_trigger_name(col), tbl,
        pg_catalog.quote_literal(col), pg_catalog.quote_literal(max_distance::text),
        COALESCE(', ' || keys, ''));

    -- Without an index the guard scans the whole table for every row. The
    -- simhash access method may not be installed (it ships separately from
    -- the guard): only then is the index skipped.
    IF EXISTS (SELECT FROM pg_catalog.pg_am WHERE amname = 'simhash' AND amtype = 'i')
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_index i
                         JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
                         JOIN pg_catalog.pg_am am ON am.oid = ic.relam
                        WHERE i.indrelid = tbl AND am.amname = 'simhash' AND i.indkey[0] = col_attnum
                          AND i.indpred IS NULL) THEN
        EXECUTE pg_catalog.format('CREATE INDEX ON %s USING simhash (%I)', tbl, col);
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard(pg_catalog.regclass, pg_catalog.name, pg_catalog.int4)
    IS 'reject rows whose fingerprint in col is within max_distance bits of another row''s (creates a simhash index if none)';

CREATE FUNCTION @extschema@.simhash_unguard(tbl pg_catalog.regclass, col pg_catalog.name)
    RETURNS void LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    existing pg_catalog.name := @extschema@.simhash_guard_trigger(tbl, col);
    parent pg_catalog.regclass := @extschema@.simhash_guard_owner(tbl, col);
BEGIN
    IF parent IS NOT NULL THEN
        RAISE EXCEPTION 'simhash_unguard: the guard of partition "%" on column "%" belongs to its partitioned table "%"',
                        tbl, col, parent
            USING ERRCODE = 'dependent_objects_still_exist', HINT = 'Unguard the partitioned table.';
    END IF;
    IF existing IS NULL THEN
        RAISE EXCEPTION 'simhash_unguard: relation "%" has no simhash guard on column "%"', tbl, col
            USING ERRCODE = 'undefined_object';
    END IF;
    EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', existing, tbl);
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_unguard(pg_catalog.regclass, pg_catalog.name)
    IS 'remove the guard of col (the index stays)';
