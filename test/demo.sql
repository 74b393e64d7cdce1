-- The demo run by .ci/demo: fingerprint sample documents, find their near-duplicates.
\pset footer off
CREATE EXTENSION simhash;

CREATE TABLE docs (id int PRIMARY KEY, pep int, revision int, title text, body text,
                   fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED);
\copy docs (id, pep, revision, title, body) FROM 'test/data/samples.copy'
CREATE INDEX docs_fp ON docs USING simhash (fp);

\echo
\echo '36 documents: three revisions (first, middle, last) of twelve Python Enhancement Proposals.'
\echo 'Each pair of documents within 3 bits of each other (out of 64):'
\echo
SELECT a.id AS doc_a, b.id AS doc_b, a.fp <-> b.fp AS distance,
       format('PEP %s rev %s / rev %s', a.pep, a.revision, b.revision) AS what,
       left(a.title, 40) AS title
FROM docs a JOIN docs b ON a.id < b.id AND simhash_within(a.fp, b.fp, 3)
ORDER BY distance, doc_a, doc_b;

\echo 'Distances over all pairs of documents, by kind of pair:'
\echo
SELECT CASE WHEN a.pep = b.pep THEN 'revisions of the same PEP' ELSE 'different PEPs' END AS pair,
       count(*) AS pairs, min(a.fp <-> b.fp) AS min_distance,
       round(avg(a.fp <-> b.fp), 1) AS avg_distance, max(a.fp <-> b.fp) AS max_distance
FROM docs a JOIN docs b ON a.id < b.id
GROUP BY 1 ORDER BY 1 DESC;

\echo 'Why documents match: the heaviest of the features a short document votes with'
\echo
SELECT feature, weight FROM simhash_features((SELECT body FROM docs WHERE id = 4))
ORDER BY weight DESC, feature LIMIT 8;

\echo 'The three documents nearest to PEP 3105 rev 12, through the simhash index (exact ORDER BY <->):'
\echo
SELECT d.id, d.fp <-> q.fp AS distance, format('PEP %s rev %s', d.pep, d.revision) AS what
FROM docs d, (SELECT fp FROM docs WHERE id = 36) q
WHERE d.id <> 36
ORDER BY d.fp <-> q.fp, d.id LIMIT 3;

\echo 'A near-duplicate guard: inserting a copy of a document is refused.'
\echo
SELECT simhash_guard('docs', 'fp', 3);
\set ON_ERROR_STOP 0
INSERT INTO docs (id, pep, revision, title, body) SELECT 99, pep, 99, title, body || ' (mirror)' FROM docs WHERE id = 36;
