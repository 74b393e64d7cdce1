-- A document has the same fingerprint in every database encoding: text is
-- converted to UTF-8 before tokens are cut and hashed. Two databases of their
-- own, UTF8 and LATIN1, compute the same things on the same characters.
SELECT current_database() AS regress_db \gset
CREATE DATABASE simhash_enc_utf8 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE simhash_enc_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE simhash_enc_sql_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
-- Only characters that LATIN1 has (the test file is UTF-8; the client says so).
\set doc '''Crème brûlée à la façon de Noël: naïve Übermaß, déjà vu, garçon! ÉTÉ été Été.'''

\c simhash_enc_utf8
SET client_encoding = 'UTF8';
CREATE EXTENSION simhash;
SELECT simhash(:doc) AS words, simhash(:doc, tokens => 'chars') AS chars,
       simhash(:doc, stop_words => 'french', shingle => 2) AS french_pairs,
       simhash(:doc, html => true, weighting => 'log_tf') AS html_log_tf,
       simhash(ARRAY['crème', 'brûlée']) AS text_array,
       simhash(ARRAY['crème', 'brûlée'], ARRAY[2, 0.5]) AS weighted_array,
       simhash('crème:1,3 brûlée:2 été'::tsvector) AS tsvector,
       simhash('µ') AS micro,
       (SELECT simhash_agg(f, 1) FROM unnest(ARRAY['crème', 'brûlée']) f) AS agg,
       (SELECT string_agg(feature || ':' || weight, ' ') FROM simhash_features(:doc)) AS features,
       simhash_feature_hash('été') AS feature_hash
\gset utf8_
\x on
SELECT :'utf8_words' AS words, :'utf8_chars' AS chars, :'utf8_french_pairs' AS french_pairs,
       :'utf8_html_log_tf' AS html_log_tf, :'utf8_text_array' AS text_array,
       :'utf8_weighted_array' AS weighted_array, :'utf8_tsvector' AS tsvector, :'utf8_agg' AS agg,
       :'utf8_features' AS features, :'utf8_micro' AS micro;
\x off
-- Folding is Unicode's in every encoding.
SELECT simhash('ÉTÉ') = simhash('été') AS folded_utf8;
SELECT * FROM simhash_features('µ');

\c simhash_enc_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION simhash;
SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database();
SELECT simhash(:doc) = :'utf8_words' AS words,
       simhash(:doc, tokens => 'chars') = :'utf8_chars' AS chars,
       simhash(:doc, stop_words => 'french', shingle => 2) = :'utf8_french_pairs' AS french_pairs,
       simhash(:doc, html => true, weighting => 'log_tf') = :'utf8_html_log_tf' AS html_log_tf,
       simhash(ARRAY['crème', 'brûlée']) = :'utf8_text_array' AS text_array,
       simhash(ARRAY['crème', 'brûlée'], ARRAY[2, 0.5]) = :'utf8_weighted_array' AS weighted_array,
       simhash('crème:1,3 brûlée:2 été'::tsvector) = :'utf8_tsvector' AS tsvector,
       (SELECT simhash_agg(f, 1) FROM unnest(ARRAY['crème', 'brûlée']) f) = :'utf8_agg' AS agg,
       (SELECT string_agg(feature || ':' || weight, ' ') FROM simhash_features(:doc)) = :'utf8_features' AS features,
       simhash_feature_hash('été') = :'utf8_feature_hash' AS feature_hash;
SELECT simhash('ÉTÉ') = simhash('été') AS folded_latin1;
-- A stop-word list whose words LATIN1 cannot spell still loads (lists are read as UTF-8).
SELECT simhash('the cat', stop_words => 'russian') = simhash('the cat') AS russian_list_loads;
-- Case folding can produce a character the database encoding lacks (MICRO SIGN
-- folds to GREEK SMALL LETTER MU): the fingerprint is fine, showing that feature is an error.
SELECT simhash('µ') = :'utf8_micro' AS micro_fingerprint;
SELECT * FROM simhash_features('µ');

-- SQL_ASCII: bytes are taken as they are; UTF-8 text gives the UTF8 fingerprints,
-- and bytes that are not UTF-8 separate words instead of raising an error.
\c simhash_enc_sql_ascii
SET client_encoding = 'UTF8';
CREATE EXTENSION simhash;
SELECT simhash(:doc) = :'utf8_words' AS words,
       simhash(:doc, tokens => 'chars') = :'utf8_chars' AS chars,
       simhash(ARRAY['crème', 'brûlée']) = :'utf8_text_array' AS text_array,
       (SELECT string_agg(feature || ':' || weight, ' ') FROM simhash_features(:doc)) = :'utf8_features' AS features;
SELECT simhash(E'caf\xe9 au lait') = simhash('caf au lait') AS latin1_byte_separates;
SELECT feature FROM simhash_features(E'caf\xe9 au lait');

\c :regress_db
DROP DATABASE simhash_enc_utf8 WITH (FORCE);
DROP DATABASE simhash_enc_latin1 WITH (FORCE);
DROP DATABASE simhash_enc_sql_ascii WITH (FORCE);
