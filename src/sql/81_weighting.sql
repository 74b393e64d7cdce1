-- Corpus-aware weighting (docs/weighting.md): document-frequency statistics and
-- tf x idf fingerprints.
--
-- A statistics table has columns hash bigint (a feature hash, or NULL for the
-- row holding the document count) and df bigint (documents holding the
-- feature; on the NULL row, the number of documents), unique on hash with NULLS
-- NOT DISTINCT so that the count row is one row and upserts can target it.

-- Creates table `stats` and fills it from the first column of `query` (one row
-- per document, NULL documents skipped); returns the number of documents. The
-- options must be those the fingerprints will use (weighting and top_n do not
-- matter here).
CREATE FUNCTION @extschema@.simhash_df_build(stats pg_catalog.text, query pg_catalog.text,
                                             tokens pg_catalog.text DEFAULT 'words',
                                             shingle pg_catalog.int4 DEFAULT NULL,
                                             stop_words pg_catalog.text DEFAULT NULL,
                                             html pg_catalog.bool DEFAULT false,
                                             seed pg_catalog.int8 DEFAULT 0,
                                             hash pg_catalog.text DEFAULT 'xxh3')
    RETURNS pg_catalog.int8 LANGUAGE plpgsql VOLATILE
AS $body$
DECLARE
    target pg_catalog.text;
    documents pg_catalog.int8;
BEGIN
    IF stats IS NULL OR query IS NULL OR tokens IS NULL OR html IS NULL OR seed IS NULL OR hash IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004',
            MESSAGE = 'simhash_df_build: stats, query, tokens, html, seed and hash must not be NULL';
    END IF;
    -- Rejects bad options before any table is created.
    PERFORM @extschema@.simhash_features('', tokens, shingle, 'tf', stop_words, html, seed, hash);
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(part), '.' ORDER BY n) INTO target
        FROM pg_catalog.unnest(pg_catalog.parse_ident(stats)) WITH ORDINALITY AS p(part, n);
    EXECUTE pg_catalog.format('CREATE TABLE %s (hash pg_catalog.int8, df pg_catalog.int8 NOT NULL, '
                              'UNIQUE NULLS NOT DISTINCT (hash))', target);
    EXECUTE pg_catalog.format(
        'WITH documents AS MATERIALIZED ('
        '    SELECT q.document::pg_catalog.text AS document FROM (%s) AS q(document) WHERE q.document IS NOT NULL),'
        ' features AS ('
        '    SELECT f.hash, pg_catalog.count(*) AS df FROM documents AS d,'
        '        @extschema@.simhash_features(d.document, $1, $2, ''tf'', $3, $4, $5, $6) AS f GROUP BY f.hash),'
        ' inserted AS ('
        '    INSERT INTO %s (hash, df)'
        '    SELECT hash, df FROM features UNION ALL SELECT NULL, pg_catalog.count(*) FROM documents'
        '    RETURNING hash, df)'
        ' SELECT df FROM inserted WHERE hash IS NULL', query, target)
        INTO documents USING tokens, shingle, stop_words, html, seed, hash;
    RETURN documents;
END
$body$;
COMMENT ON FUNCTION @extschema@.simhash_df_build(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.int4,
                                                 pg_catalog.text, pg_catalog.bool, pg_catalog.int8, pg_catalog.text)
    IS 'creates document-frequency statistics (hash, df; hash NULL: document count) from the first column of a query';

-- Counts one more document into (or, with delta -1, one fewer out of) a
-- statistics table: the incremental form of simhash_df_build, for triggers.
CREATE FUNCTION @extschema@.simhash_df_add(stats pg_catalog.text, document pg_catalog.text,
                                           tokens pg_catalog.text DEFAULT 'words',
                                           shingle pg_catalog.int4 DEFAULT NULL,
                                           stop_words pg_catalog.text DEFAULT NULL,
                                           html pg_catalog.bool DEFAULT false,
                                           seed pg_catalog.int8 DEFAULT 0,
                                           hash pg_catalog.text DEFAULT 'xxh3',
                                           delta pg_catalog.int4 DEFAULT 1)
    RETURNS void LANGUAGE plpgsql VOLATILE
AS $body$
DECLARE
    target pg_catalog.regclass;
BEGIN
    IF stats IS NULL OR tokens IS NULL OR html IS NULL OR seed IS NULL OR hash IS NULL OR delta IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004',
            MESSAGE = 'simhash_df_add: stats, tokens, html, seed, hash and delta must not be NULL';
    END IF;
    IF delta NOT IN (1, -1) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('invalid value for option delta: "%s"', delta),
            HINT = 'delta must be 1 (a document arrives) or -1 (a document leaves).';
    END IF;
    target := pg_catalog.to_regclass(stats);
    IF target IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '42P01',
            MESSAGE = pg_catalog.format('statistics table "%s" does not exist', stats),
            HINT = 'Build one with simhash_df_build().';
    END IF;
    IF document IS NULL THEN
        RETURN;
    END IF;
    EXECUTE pg_catalog.format(
        'INSERT INTO %s AS s (hash, df)'
        ' SELECT f.hash, $8 FROM @extschema@.simhash_features($1, $2, $3, ''tf'', $4, $5, $6, $7) AS f'
        ' UNION ALL SELECT NULL, $8'
        ' ON CONFLICT (hash) DO UPDATE SET df = s.df OPERATOR(pg_catalog.+) excluded.df', target)
        USING document, tokens, shingle, stop_words, html, seed, hash, delta::pg_catalog.int8;
END
$body$;
COMMENT ON FUNCTION @extschema@.simhash_df_add(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.int4,
                                               pg_catalog.text, pg_catalog.bool, pg_catalog.int8, pg_catalog.text,
                                               pg_catalog.int4)
    IS 'adds one document to (delta 1) or removes it from (delta -1) document-frequency statistics';

-- The fingerprint with tf x idf weights, idf = ln(1 + N / df) from the
-- statistics table named by idf (unseen features: ln(1 + N)). STABLE: it reads
-- the table, once per query and call site. PARALLEL RESTRICTED: a worker could
-- not read a temporary statistics table.
CREATE FUNCTION @extschema@.simhash_tfidf(document pg_catalog.text, idf pg_catalog.text,
                                          tokens pg_catalog.text DEFAULT 'words',
                                          shingle pg_catalog.int4 DEFAULT NULL,
                                          weighting pg_catalog.text DEFAULT 'tf',
                                          stop_words pg_catalog.text DEFAULT NULL,
                                          html pg_catalog.bool DEFAULT false,
                                          seed pg_catalog.int8 DEFAULT 0,
                                          hash pg_catalog.text DEFAULT 'xxh3',
                                          top_n pg_catalog.int4 DEFAULT NULL)
    RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_tfidf_text' LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simhash_tfidf(pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.int4,
                                              pg_catalog.text, pg_catalog.text, pg_catalog.bool, pg_catalog.int8,
                                              pg_catalog.text, pg_catalog.int4)
    IS 'fingerprint of a document with weights (tf, binary or log_tf) x idf from a simhash_df_build table';

CREATE FUNCTION @extschema@.simhash_tfidf_features(document pg_catalog.text, idf pg_catalog.text,
                                                   tokens pg_catalog.text DEFAULT 'words',
                                                   shingle pg_catalog.int4 DEFAULT NULL,
                                                   weighting pg_catalog.text DEFAULT 'tf',
                                                   stop_words pg_catalog.text DEFAULT NULL,
                                                   html pg_catalog.bool DEFAULT false,
                                                   seed pg_catalog.int8 DEFAULT 0,
                                                   hash pg_catalog.text DEFAULT 'xxh3',
                                                   top_n pg_catalog.int4 DEFAULT NULL)
    RETURNS TABLE (feature pg_catalog.text, hash pg_catalog.int8, weight pg_catalog.float8)
    AS 'MODULE_PATHNAME', 'simhash_tfidf_features_text' LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 200;
COMMENT ON FUNCTION @extschema@.simhash_tfidf_features(pg_catalog.text, pg_catalog.text, pg_catalog.text,
                                                       pg_catalog.int4, pg_catalog.text, pg_catalog.text,
                                                       pg_catalog.bool, pg_catalog.int8, pg_catalog.text,
                                                       pg_catalog.int4)
    IS 'the features simhash_tfidf(document, idf, ...) votes with: feature, hash, tf x idf weight';

-- The documented N for top_n by document length: max(16, floor(2 sqrt(characters))).
CREATE FUNCTION @extschema@.simhash_top_n_for_length(characters pg_catalog.int8)
    RETURNS pg_catalog.int4
    AS 'MODULE_PATHNAME', 'simhash_top_n_for_length' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_top_n_for_length(pg_catalog.int8)
    IS 'top_n for a document of this many characters: max(16, floor(2 sqrt(characters))), measured in docs/weighting.md';
