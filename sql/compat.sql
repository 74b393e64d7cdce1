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
