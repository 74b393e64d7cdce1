-- Weighting options (issue 5): hash, top_n, document-frequency statistics, tf x idf.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
\set doc '''The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away.'''

-- hash => 'jenkins' is the array form over jenkins hashes of the same words,
-- one element per occurrence (tf); the default stays xxh3.
SELECT simhash(:doc, hash => 'jenkins') =
       simhash(ARRAY(SELECT simhash_feature_hash(w, 'jenkins')
                     FROM regexp_split_to_table(lower(:doc), '[^a-z]+') AS w WHERE w <> '')) AS jenkins_is_array_form,
       simhash(:doc) = simhash(:doc, hash => 'xxh3') AS xxh3_default,
       simhash(:doc) <> simhash(:doc, hash => 'jenkins') AS jenkins_differs,
       simhash(:doc, hash => 'jenkins') AS jenkins_vector;
SELECT bool_and(hash = simhash_feature_hash(feature, 'jenkins')) AS features_hashed_by_jenkins, count(*)
FROM simhash_features(:doc, hash => 'jenkins');
-- Shingles and other options combine with jenkins.
SELECT simhash('a b c', shingle => 2, hash => 'jenkins') =
       simhash(ARRAY[simhash_feature_hash('a b', 'jenkins'), simhash_feature_hash('b c', 'jenkins')]) AS jenkins_shingles;
-- Errors: an unknown hash, a seed with jenkins. A NULL hash gives NULL like the other options.
SELECT pg_temp.error_of($$SELECT simhash('x', hash => 'md5')$$) AS unknown_hash,
       pg_temp.error_of($$SELECT * FROM simhash_features('x', hash => 'JENKINS')$$) AS hash_names_are_lower_case,
       pg_temp.error_of($$SELECT simhash('x', hash => 'jenkins', seed => 1)$$) AS jenkins_seed;
SELECT simhash('x', hash => NULL) IS NULL AS null_hash, count(*) AS no_rows FROM simhash_features('x', hash => NULL);

-- top_n keeps the N heaviest features: the vote over exactly the rows
-- simhash_features(..., top_n) shows, in their order of first occurrence.
SELECT feature, weight FROM simhash_features(:doc, top_n => 3);
SELECT simhash(:doc, top_n => 3) =
       (SELECT simhash(array_agg(hash), array_agg(weight)) FROM simhash_features(:doc, top_n => 3)) AS top_n_is_its_rows,
       simhash(:doc, top_n => 3) <> simhash(:doc) AS top_n_changes,
       simhash(:doc, top_n => 1000) = simhash(:doc) AS large_top_n_keeps_all,
       simhash(:doc, top_n => NULL) = simhash(:doc) AS null_top_n_keeps_all;
-- Ties go to the smaller hash, read as an unsigned 64-bit number.
SELECT (SELECT array_agg(feature ORDER BY feature) FROM simhash_features('d c b a e f', top_n => 2)) =
       (SELECT array_agg(feature ORDER BY feature)
        FROM (SELECT feature FROM simhash_features('d c b a e f')
              ORDER BY hash::numeric + CASE WHEN hash < 0 THEN 18446744073709551616 ELSE 0 END LIMIT 2) AS s)
       AS ties_to_smaller_unsigned_hash;
SELECT pg_temp.error_of($$SELECT simhash('x', top_n => 0)$$) AS top_n_zero,
       pg_temp.error_of($$SELECT * FROM simhash_features('x', top_n => -5)$$) AS top_n_negative;

-- Document-frequency statistics from any query (first column; NULL documents skipped).
CREATE TABLE docs (id int, body text);
INSERT INTO docs VALUES (1, 'the cat sat on the mat'), (2, 'the dog sat'), (3, 'a bird flew over the dog'),
                        (4, NULL), (5, '');
SELECT simhash_df_build('docs_df', 'SELECT body FROM docs') AS documents;
SELECT f.feature, s.df FROM docs_df AS s
LEFT JOIN LATERAL (SELECT DISTINCT w AS feature FROM docs, regexp_split_to_table(docs.body, ' ') AS w
                   WHERE simhash_feature_hash(w) = s.hash) AS f ON true
ORDER BY s.hash IS NOT NULL, s.df DESC, f.feature;
-- The table: hash and df bigint, one count row (hash NULL), unique on hash.
SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute
WHERE attrelid = 'docs_df'::regclass AND attnum > 0 ORDER BY attnum;
-- Options are those of the fingerprints: a qualified name and shingles.
CREATE SCHEMA stats;
SELECT simhash_df_build('stats."Pairs"', 'SELECT body FROM docs ORDER BY id', shingle => 2) AS documents;
SELECT df FROM stats."Pairs" WHERE hash = simhash_feature_hash('sat on') OR hash IS NULL ORDER BY hash NULLS FIRST;
SELECT simhash_df_build('stats.jenkins_df', 'SELECT body FROM docs', hash => 'jenkins') AS documents;
SELECT df FROM stats.jenkins_df WHERE hash = simhash_feature_hash('the', 'jenkins');
-- An empty query still writes the count row.
SELECT simhash_df_build('stats.empty_df', 'SELECT body FROM docs WHERE false') AS documents;
SELECT hash, df FROM stats.empty_df;

-- Incremental: one document in (delta 1, the default) and out again (delta -1).
CREATE TABLE snapshot AS SELECT * FROM docs_df;
SELECT simhash_df_add('docs_df', 'the cat and the hat');
SELECT (SELECT df FROM docs_df WHERE hash IS NULL) AS documents,
       (SELECT df FROM docs_df WHERE hash = simhash_feature_hash('the')) AS the,
       (SELECT df FROM docs_df WHERE hash = simhash_feature_hash('hat')) AS hat;
SELECT simhash_df_add('docs_df', 'the cat and the hat', delta => -1);
SELECT count(*) AS rows_differing FROM (
  (SELECT hash, df FROM docs_df EXCEPT SELECT hash, df FROM snapshot)
  UNION ALL (SELECT hash, df FROM snapshot EXCEPT SELECT hash, df FROM docs_df)) AS d
WHERE df <> 0;
SELECT simhash_df_add('docs_df', NULL) AS null_document_is_no_document,
       (SELECT df FROM docs_df WHERE hash IS NULL) AS documents;
-- Kept current by a trigger.
CREATE FUNCTION pg_temp.docs_df_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM simhash_df_add('docs_df', OLD.body, delta => -1); END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM simhash_df_add('docs_df', NEW.body); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER docs_df AFTER INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW EXECUTE FUNCTION pg_temp.docs_df_trigger();
INSERT INTO docs VALUES (6, 'the end');
UPDATE docs SET body = 'the dog sat down' WHERE id = 2;
DELETE FROM docs WHERE id = 1;
CREATE TABLE rebuilt_from AS SELECT body FROM docs;
SELECT simhash_df_build('rebuilt', 'SELECT body FROM rebuilt_from') AS documents;
SELECT count(*) AS trigger_differs_from_rebuild FROM (
  (SELECT hash, df FROM docs_df WHERE df <> 0 EXCEPT SELECT hash, df FROM rebuilt)
  UNION ALL (SELECT hash, df FROM rebuilt EXCEPT SELECT hash, df FROM docs_df)) AS d;
DROP TRIGGER docs_df ON docs;
-- Errors of the statistics functions name the input.
SELECT pg_temp.error_of($$SELECT simhash_df_build('docs_df', 'SELECT body FROM docs')$$) AS table_exists,
       pg_temp.error_of($$SELECT simhash_df_build('new_df', 'SELECT body FROM docs', tokens => 'lines')$$) AS bad_tokens,
       pg_temp.error_of($$SELECT simhash_df_build('new_df', 'SELECT body FROM docs', hash => 'md5')$$) AS bad_hash,
       pg_temp.error_of($$SELECT simhash_df_build('new_df', NULL)$$) AS null_query,
       pg_temp.error_of($$SELECT simhash_df_build('new_df', 'SELECT nope FROM docs')$$) AS bad_query;
SELECT to_regclass('new_df') IS NULL AS nothing_created_on_error;
SELECT pg_temp.error_of($$SELECT simhash_df_add('no_such_df', 'x')$$) AS missing_table,
       pg_temp.error_of($$SELECT simhash_df_add('docs_df', 'x', delta => 2)$$) AS bad_delta,
       pg_temp.error_of($$SELECT simhash_df_add('docs_df', 'x', seed => 3, hash => 'jenkins')$$) AS jenkins_seed;

-- tf x idf: weight = tf * ln(1 + N / df); features the table never saw get ln(1 + N).
SELECT feature, weight, round(weight::numeric, 6) AS rounded FROM simhash_tfidf_features('the cat saw the zebra', 'docs_df');
SELECT bool_and(abs(f.weight - f.tf * ln(1 + n.df::float8 / coalesce(s.df, 1))) < 1e-9) AS weights_are_tf_idf
FROM (SELECT t.feature, t.hash, t.weight, p.weight AS tf
      FROM simhash_tfidf_features(:doc, 'docs_df') AS t JOIN simhash_features(:doc) AS p USING (hash)) AS f
LEFT JOIN docs_df AS s ON s.hash = f.hash AND s.df > 0
CROSS JOIN (SELECT df FROM docs_df WHERE hash IS NULL) AS n;
-- The fingerprint is the vote over those rows; weighting and top_n apply before and after idf.
SELECT simhash_tfidf(:doc, 'docs_df') =
       (SELECT simhash(array_agg(hash), array_agg(weight)) FROM simhash_tfidf_features(:doc, 'docs_df')) AS vote_of_rows,
       simhash_tfidf(:doc, 'docs_df') <> simhash(:doc) AS idf_changes,
       simhash_tfidf(:doc, 'docs_df', top_n => 2) =
       (SELECT simhash(array_agg(hash), array_agg(weight))
        FROM simhash_tfidf_features(:doc, 'docs_df', top_n => 2)) AS top_n_after_idf,
       simhash_tfidf(:doc, 'docs_df', weighting => 'binary') =
       (SELECT simhash(array_agg(hash), array_agg(weight))
        FROM simhash_tfidf_features(:doc, 'docs_df', weighting => 'binary')) AS binary_idf,
       simhash_tfidf(:doc, 'stats.jenkins_df', hash => 'jenkins') =
       (SELECT simhash(array_agg(hash), array_agg(weight))
        FROM simhash_tfidf_features(:doc, 'stats.jenkins_df', hash => 'jenkins')) AS jenkins_idf;
SELECT feature FROM simhash_tfidf_features('the cat saw the zebra', 'docs_df', top_n => 2);
-- Over a table: the statistics are read per query; NULL document or table gives NULL.
SELECT id, simhash_tfidf(body, 'docs_df') FROM docs ORDER BY id;
SELECT simhash_tfidf(NULL, 'docs_df') IS NULL AS null_document, simhash_tfidf('x', NULL) IS NULL AS null_table,
       simhash_tfidf('x', 'docs_df', tokens => NULL) IS NULL AS null_option;
-- An empty corpus weighs every feature 0: the fingerprint is 0.
SELECT simhash_tfidf(:doc, 'stats.empty_df') AS empty_corpus;
-- Later statements see later statistics, also from the same call site in
-- PL/pgSQL (whose expression state outlives one statement): 'zebra' is unseen,
-- then common, so the heavier feature of 'zebra the' changes.
DO $$
DECLARE fingerprints simhash64[];
BEGIN
  FOR i IN 1..2 LOOP
    fingerprints := fingerprints || simhash_tfidf('zebra the', 'docs_df');
    FOR j IN 1..10 LOOP PERFORM simhash_df_add('docs_df', 'zebra'); END LOOP;
  END LOOP;
  RAISE NOTICE 'first: %, then: %', fingerprints[1] = simhash('zebra'), fingerprints[2] = simhash('the');
END $$;
-- The search_path decides an unqualified name, like any table name.
CREATE TABLE stats.docs_df AS SELECT * FROM stats.empty_df;
SET search_path = stats, public;
SELECT simhash_tfidf(:doc, 'docs_df') AS from_stats_schema, simhash_tfidf(:doc, 'public.docs_df') <> simhash_tfidf(:doc, 'stats.docs_df') AS qualified;
RESET search_path;

-- Errors name the option idf.
CREATE TABLE wrong_type (hash text, df bigint);
CREATE TABLE no_df (hash bigint, n bigint);
CREATE TABLE no_count (hash bigint, df bigint);
INSERT INTO no_count VALUES (1, 1);
CREATE TABLE negative (hash bigint, df bigint);
INSERT INTO negative VALUES (NULL, 3), (1, -1);
CREATE TABLE null_df (hash bigint, df bigint);
INSERT INTO null_df VALUES (NULL, 3), (1, NULL);
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'no_such_table')$$) AS missing;
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'wrong_type')$$) AS wrong_type;
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'no_df')$$) AS no_df;
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'no_count')$$) AS no_count;
SELECT pg_temp.error_of($$SELECT * FROM simhash_tfidf_features('x', 'negative')$$) AS negative;
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'null_df')$$) AS null_df;
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'docs_df', top_n => 0)$$) AS top_n,
       pg_temp.error_of($$SELECT simhash_tfidf('x', 'docs_df', hash => 'sha1')$$) AS hash;
-- Privileges are those of the caller: the table is read through SQL.
CREATE ROLE simhash_weighting_reader;
GRANT USAGE ON SCHEMA stats TO simhash_weighting_reader;
SET ROLE simhash_weighting_reader;
SELECT pg_temp.error_of($$SELECT simhash_tfidf('x', 'public.docs_df')$$) AS no_select_privilege;
RESET ROLE;
REVOKE USAGE ON SCHEMA stats FROM simhash_weighting_reader;
DROP ROLE simhash_weighting_reader;

-- The documented N by length: max(16, floor(2 sqrt(characters))).
SELECT n, simhash_top_n_for_length(n) FROM unnest(ARRAY[0, 100, 10000, 30000, 9223372036854775807]) AS n;
SELECT simhash_top_n_for_length(NULL) IS NULL AS strict,
       pg_temp.error_of($$SELECT simhash_top_n_for_length(-1)$$) AS negative;
SELECT simhash_tfidf(body, 'docs_df', top_n => simhash_top_n_for_length(length(body))) =
       simhash_tfidf(body, 'docs_df') AS short_documents_keep_all
FROM docs WHERE id = 3;
