-- simhash(tsvector): lexemes weighted by their number of positions.
SELECT simhash('cat:1,3 dog:2'::tsvector) = simhash(ARRAY['cat', 'dog'], ARRAY[2, 1]::float8[]) AS positions_weigh;
-- Stripped: every lexeme has weight 1.
SELECT simhash(strip('cat:1,3 dog:2'::tsvector)) = simhash(ARRAY['cat', 'dog']) AS stripped_unit;
SELECT simhash('cat dog'::tsvector) = simhash(ARRAY['cat', 'dog']) AS no_positions_unit;
-- Labels (A-D) do not change the fingerprint.
SELECT simhash('cat:1A,3B dog:2C'::tsvector) = simhash('cat:1,3 dog:2'::tsvector) AS labels_ignored;
-- Through a text-search configuration: stemming makes inflections agree.
SELECT simhash(to_tsvector('english', 'The cats were running')) = simhash(to_tsvector('english', 'the cat runs')) AS stemmed;
SELECT simhash(to_tsvector('english', 'The cats were running')) AS english_fixed;
-- Multi-byte lexemes hash their UTF-8 bytes.
SELECT simhash(to_tsvector('simple', U&'caf\00E9')) = simhash(ARRAY[U&'caf\00E9']) AS utf8_lexeme;
-- No lexemes: 0. NULL: NULL.
SELECT simhash(''::tsvector) AS empty, simhash(to_tsvector('english', 'the and of')) AS only_stop_words,
       simhash(NULL::tsvector) IS NULL AS null_in_null_out;
