-- The fingerprint of a document's text (scheme simhash-text-v1, docs/functions.md).
-- Not STRICT: shingle and stop_words default to NULL ("the default for the token
-- kind", "no stop words"); a NULL document or any other NULL option gives NULL.
-- IMMUTABLE like to_tsvector(regconfig, text): stop-word lists are installation
-- data, and editing one means recomputing the fingerprints that used it.
CREATE FUNCTION @extschema@.simhash(document pg_catalog.text,
                                    tokens pg_catalog.text DEFAULT 'words',
                                    shingle pg_catalog.int4 DEFAULT NULL,
                                    weighting pg_catalog.text DEFAULT 'tf',
                                    stop_words pg_catalog.text DEFAULT NULL,
                                    html pg_catalog.bool DEFAULT false,
                                    seed pg_catalog.int8 DEFAULT 0)
    RETURNS @extschema@.simhash64
    AS 'MODULE_PATHNAME', 'simhash_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(pg_catalog.text, pg_catalog.text, pg_catalog.int4, pg_catalog.text,
                                        pg_catalog.text, pg_catalog.bool, pg_catalog.int8)
    IS 'fingerprint of a document: tokens words|chars, shingle n (NULL: words 1, chars 3), weighting tf|binary|log_tf, stop_words language, html, seed';
