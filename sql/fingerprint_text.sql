-- simhash(text) and simhash_features(text): options, defaults, errors.
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END $$;
\set doc '''The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away.'''

-- Fixed vectors (scheme simhash-text-v1): a change here breaks stored fingerprints.
SELECT simhash(:doc) AS words_default,
       simhash(:doc, tokens => 'chars') AS chars_default,
       simhash(:doc, shingle => 2) AS word_pairs,
       simhash(:doc, weighting => 'binary') AS binary,
       simhash(:doc, weighting => 'log_tf') AS log_tf,
       simhash(:doc, stop_words => 'english') AS no_stop_words,
       simhash(:doc, seed => 42) AS seeded;
-- The default options are the documented ones, by position and by name.
SELECT simhash(:doc) = simhash(:doc, 'words', 1, 'tf', NULL, false, 0) AS positional_defaults,
       simhash(:doc) = simhash(document => :doc, tokens => 'words', shingle => 1, weighting => 'tf',
                               stop_words => NULL, html => false, seed => 0) AS named_defaults,
       simhash(:doc, tokens => 'chars') = simhash(:doc, tokens => 'chars', shingle => 3) AS chars_shingle_3,
       simhash(:doc, shingle => NULL) = simhash(:doc, shingle => 1) AS null_shingle_default;
-- Named and positional arguments mix.
SELECT simhash(:doc, 'words', 2) = simhash(:doc, shingle => 2) AS mixed,
       simhash(:doc, seed => 7, tokens => 'chars') = simhash(:doc, 'chars', NULL, 'tf', NULL, false, 7) AS any_order;
-- Every option changes the fingerprint (one call per option, against the default).
SELECT simhash(:doc) <> simhash(:doc, tokens => 'chars') AS tokens,
       simhash(:doc) <> simhash(:doc, shingle => 3) AS shingle,
       simhash(:doc) <> simhash(:doc, weighting => 'binary') AS binary,
       simhash(:doc, weighting => 'binary') <> simhash(:doc, weighting => 'log_tf') AS log_tf,
       simhash(:doc) <> simhash(:doc, stop_words => 'english') AS stop_words,
       simhash(:doc) <> simhash(:doc, seed => -1) AS seed;
-- Case folding and punctuation: these agree. Numbers alone are not words.
SELECT simhash('Hello, WORLD!') = simhash('hello world') AS folded,
       simhash('Straße') = simhash('STRASSE') AS full_folding,
       simhash('hello 2024 world 42') = simhash('hello world') AS numbers_dropped;
-- HTML: tags, scripts, styles, comments and entities go; off by default.
SELECT simhash('<p>Fish &amp; <b>chips</b></p><script>var x = 1;</script><!-- note -->', html => true)
       = simhash('Fish & chips') AS html_stripped,
       simhash('<p>Fish</p>') <> simhash('Fish') AS html_off_by_default;
-- Features and the fingerprint agree: simhash(text) is the vote over simhash_features.
SELECT simhash(:doc, shingle => s, weighting => w, tokens => t)
       = (SELECT simhash(array_agg(hash), array_agg(weight)) FROM simhash_features(:doc, shingle => s, weighting => w, tokens => t))
       AS agrees, t, s, w
FROM (VALUES ('words', 1, 'tf'), ('words', 3, 'binary'), ('chars', 2, 'log_tf'), ('chars', 5, 'tf')) o(t, s, w);
SELECT simhash(:doc) = (SELECT simhash_agg(feature, weight) FROM simhash_features(:doc)) AS agg_agrees;
-- Plain words are the lexemes of the 'simple' text-search configuration, weighted alike.
SELECT simhash('The cat saw the other cat') = simhash(to_tsvector('simple', 'The cat saw the other cat')) AS same_as_simple_tsvector;
-- What the features look like.
SELECT * FROM simhash_features('The cat saw the other cat');
SELECT feature, weight FROM simhash_features('The cat saw the other cat', shingle => 2, weighting => 'log_tf');
SELECT feature FROM simhash_features('Cats', tokens => 'chars');
SELECT feature FROM simhash_features('The cat saw the other cat', stop_words => 'english');
SELECT count(*) AS other_list FROM simhash_features('und der die das Haus', stop_words => 'german');
SELECT feature FROM simhash_features(U&'\6771\4EAC\90FD', tokens => 'chars', shingle => 2);
-- A shingle longer than the text still gives one feature.
SELECT feature FROM simhash_features('only two', shingle => 5);
-- No features: 0 and no rows.
SELECT simhash('') AS empty, simhash('  ...  123 ') AS no_words, simhash('the and', stop_words => 'english') AS all_stop;
SELECT count(*) AS no_rows FROM simhash_features('');
-- NULL document: NULL. NULL options that have no NULL default: NULL.
SELECT simhash(NULL::text) IS NULL AS null_doc, simhash(:doc, tokens => NULL) IS NULL AS null_tokens,
       simhash(:doc, weighting => NULL) IS NULL AS null_weighting, simhash(:doc, html => NULL) IS NULL AS null_html,
       simhash(:doc, seed => NULL) IS NULL AS null_seed;
SELECT count(*) AS null_doc_rows FROM simhash_features(NULL);
-- An unknown-typed literal is a document (not an array or a tsvector).
SELECT simhash('fox') = simhash('fox'::text) AS literal_is_text;
-- Errors name the option and the value.
SELECT simhash(:doc, tokens => 'letters');
SELECT simhash(:doc, tokens => 'Words');
SELECT simhash(:doc, shingle => 0);
SELECT simhash(:doc, shingle => 17);
SELECT simhash(:doc, tokens => 'chars', shingle => -3);
SELECT simhash(:doc, weighting => 'tfidf');
SELECT simhash(:doc, stop_words => 'klingon');
SELECT simhash(:doc, stop_words => 'English');
SELECT simhash(:doc, stop_words => '../../../etc/passwd');
SELECT simhash(:doc, stop_words => '');
SELECT simhash(:doc, tokens => 'chars', stop_words => 'english');
SELECT * FROM simhash_features(:doc, weighting => 'idf');
SELECT q AS query, pg_temp.sqlstate_of(q) AS sqlstate FROM unnest(ARRAY[
    $q$SELECT simhash('x', tokens => 'letters')$q$,
    $q$SELECT simhash('x', shingle => 0)$q$,
    $q$SELECT simhash('x', weighting => 'tfidf')$q$,
    $q$SELECT simhash('x', stop_words => 'klingon')$q$,
    $q$SELECT simhash('x', stop_words => 'a/b')$q$,
    $q$SELECT simhash('x', tokens => 'chars', stop_words => 'english')$q$]) q;
-- In a generated column, with simhash_within to find near-duplicates.
CREATE TABLE fp_docs (id int PRIMARY KEY, body text,
                      fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED,
                      fp_chars simhash64 GENERATED ALWAYS AS (simhash(body, tokens => 'chars')) STORED);
INSERT INTO fp_docs (id, body) VALUES
    (1, 'SimHash maps a document to 64 bits so that similar documents get similar fingerprints, '
        'and the Hamming distance between two fingerprints estimates how different the documents are. '
        'Near-duplicate detection then looks for fingerprints within a few bits of each other.'),
    (2, 'SimHash maps a document to 64 bits so that similar documents get similar fingerprints, '
        'and the Hamming distance between two fingerprints estimates how different the documents are. '
        'Near-duplicate detection then looks for fingerprints within a few bits of one another.'),
    (3, 'PostgreSQL stores rows in heap pages of eight kilobytes; large values are compressed and moved '
        'out of line by TOAST, and indexes point at row versions through their item pointers.');
SELECT a.id, b.id, a.fp <-> b.fp AS distance, simhash_within(a.fp, b.fp, 8) AS within_8
FROM fp_docs a JOIN fp_docs b ON a.id < b.id ORDER BY 1, 2;
SELECT bool_and(fp = simhash(body)) AS stored_equals_computed, bool_and(fp_chars = simhash(body, 'chars')) AS chars_too
FROM fp_docs;
-- An expression index uses the same function.
CREATE INDEX fp_docs_simhash ON fp_docs (simhash(body, shingle => 2));
DROP TABLE fp_docs;
-- A big document answers query cancel (here a statement timeout) while it is being fingerprinted.
CREATE TEMP TABLE big_doc AS SELECT repeat('lorem ipsum dolor sit amet consectetur ', 2000000) AS body;
SET statement_timeout = '20ms';
SELECT simhash(body, shingle => 16, weighting => 'log_tf') FROM big_doc;
SELECT count(*) FROM big_doc, simhash_features(body, shingle => 16);
RESET statement_timeout;
SELECT simhash(left(body, 39000)) = simhash(repeat('lorem ipsum dolor sit amet consectetur ', 1000)) AS still_works
FROM big_doc;
-- Parallel workers compute the same fingerprints (each loads its own stop-word list).
CREATE TABLE par_docs AS
    SELECT g AS id, format('document %s of the %s and the %s', g, md5(g::text), md5((g % 97)::text)) AS body
    FROM generate_series(1, 20000) g;
ANALYZE par_docs;
SELECT sum(hashtextextended(simhash(body, stop_words => 'english')::text, 0)) AS serial_sum FROM par_docs \gset
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT sum(hashtextextended(simhash(body, stop_words => 'english')::text, 0)) FROM par_docs;
SELECT sum(hashtextextended(simhash(body, stop_words => 'english')::text, 0)) = :serial_sum AS parallel_same FROM par_docs;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE par_docs;
