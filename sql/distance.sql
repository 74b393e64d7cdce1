-- Hamming distance, its operator, similarity and the within-k predicate.
SELECT hamming_distance('0000000000000000', 'ffffffffffffffff') AS d64,
       '0000000000000000'::simhash64 <-> '0000000000000007' AS d3,
       simhash_similarity('0000000000000000', '000000000000000f') AS sim,
       simhash_within('0000000000000000', '0000000000000007', 3) AS w3,
       simhash_within('0000000000000000', '0000000000000007', 2) AS w2,
       simhash_within('0000000000000000', 'ffffffffffffffff', 64) AS w64;
-- k outside 0..64: 22023
\set VERBOSITY sqlstate
SELECT simhash_within('0000000000000000', '0000000000000007', 65);
SELECT simhash_within('0000000000000000', '0000000000000007', -1);
\set VERBOSITY default
SELECT simhash_within('0000000000000000', '0000000000000007', 65);
-- STRICT: NULL in, NULL out
SELECT hamming_distance(NULL, '0000000000000000') IS NULL AS d_null,
       simhash_within(NULL, '0000000000000000', 3) IS NULL AS w_null;
