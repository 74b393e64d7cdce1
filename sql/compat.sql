-- Feature hashes of other SimHash implementations.
SELECT simhash_feature_hash('', 'jenkins')::bit(64) = x'deadbeefdeadbeef' AS jenkins_empty;
SELECT simhash_feature_hash('hello', 'jenkins')::bit(64) = x'34cbbc6e5c04b779' AS jenkins_hello;
-- lookup3's own self-test vector (c = 0x17770551, b = 0xce7226e6).
SELECT simhash_feature_hash('Four score and seven years ago', 'jenkins')::bit(64) = x'17770551ce7226e6' AS jenkins_lookup3;
-- xxh3 is the default and is what simhash(text) votes with.
SELECT simhash_feature_hash('hello') = simhash_feature_hash('hello', 'xxh3') AS xxh3_default;
SELECT simhash_feature_hash('hello', 'xxh3')::bit(64) = x'9555e8555c62dcfd' AS xxh3_hello;
-- Multi-byte features hash their UTF-8 bytes.
SELECT simhash_feature_hash(U&'\84DD\7FD4', 'jenkins') <> simhash_feature_hash('', 'jenkins') AS cjk_hashed;
SELECT simhash_feature_hash(NULL, 'jenkins') IS NULL AS null_in_null_out;
-- Errors name the option value.
SELECT simhash_feature_hash('hello', 'md5');
SELECT simhash_feature_hash('hello', '');
-- yanyiwu/simhash's README example: jenkins-hashed keywords voting with their TF-IDF weights.
SELECT simhash(array_agg(simhash_feature_hash(word, 'jenkins')), array_agg(weight)) AS yanyiwu
FROM (VALUES ('蓝翔', 11.7392::float8), ('CEO', 11.7392), ('升职', 10.8562),
             ('加薪', 10.6426), ('手扶拖拉机', 10.0089)) AS k(word, weight);
SELECT '17831459094038722629'::numeric - 18446744073709551616 = (simhash64 'f776119227163845')::bigint AS yanyiwu_decimal;
-- seomoz simhash-cpp compute(): the unweighted hash form, tie rule included.
SELECT simhash(ARRAY[x'ABCD'::bigint, x'BCDE'::bigint, x'CDEF'::bigint]) AS seomoz_cpp;
-- seomoz simhash-py: md5-based unsigned_hash of 4-token windows joined without a separator
-- (222d320488623502, checked against a Python transcription of simhash-py's compute()).
WITH tokens AS (SELECT regexp_split_to_array('the quick brown fox jumps over the lazy dog', '\s+') AS t),
     shingles AS (SELECT array_to_string(t[i:i + 3], '') AS s
                  FROM tokens, generate_series(1, cardinality(t) - 3) AS i)
SELECT simhash(array_agg(('x' || left(md5(s), 16))::bit(64)::bigint)) AS seomoz_py FROM shingles;
