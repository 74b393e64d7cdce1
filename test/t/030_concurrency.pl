# Concurrency: 8 pgbench clients insert, update, delete, vacuum and query
# through the index at once for SIMHASH_PGBENCH_SECONDS (default 60).  Every
# query transaction compares the index's answer with a sequential scan under
# the same snapshot and fails the run on any difference; at the end, after
# VACUUM, the index equals a sequential scan and passes its heapallindexed check.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
my $seconds = $ENV{SIMHASH_PGBENCH_SECONDS} // 60;

my $node = PostgreSQL::Test::Cluster->new('conc');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_connections = 30
max_wal_size = 1GB
});
$node->start;
create_test_schema($node);
create_queries($node);
insert_rows($node, 'fps', 1, 20000);
# 40,000 more of the rows that share test_fp's 40-bit prefix: enough leaves
# that a query just outside the prefix walks from the root, on the downlink
# summaries that the concurrent inserts and splits keep up to date.
$node->safe_psql('postgres',
	'INSERT INTO fps (g, fp) SELECT g, test_fp(g) FROM generate_series(900000009, 900400000, 10) g');
create_simhash_index($node, $method, 'fps', 'fps_idx', 3);

# (pgbench substitutes variables inside quoted literals too.)
# Under one REPEATABLE READ snapshot the index-only scan, the plain index scan,
# the bitmap scan and the sequential scan must count the same rows; a mismatch casts the message to
# int, which fails and aborts the client with the counts in the log. Radii 4 to
# 6 take the probes beyond max_distance (one flip of each prefix: the table's
# ~70 leaves a table make them cheaper than a sweep).
my $check_within = q{
\set g random(1, 200000)
\set k random(0, 6)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) AS ios FROM fps WHERE fp <@ simhash_ball(test_fp(:g), :k) \gset
SET LOCAL enable_indexonlyscan = off;
SELECT count(*) AS idx FROM fps WHERE fp <@ simhash_ball(test_fp(:g), :k) \gset
SET LOCAL enable_indexscan = off;
SET LOCAL enable_bitmapscan = on;
SELECT count(*) AS bmp FROM fps WHERE simhash_within(fp, test_fp(:g), :k) \gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) AS seq FROM fps WHERE fp <@ simhash_ball(test_fp(:g), :k) \gset
END;
\if :ios != :seq or :idx != :seq or :bmp != :seq
SELECT ('index-only ' || :ios || ', index ' || :idx || ', bitmap ' || :bmp || ', seqscan ' || :seq || ' for g = ' || :g || ', k = ' || :k)::int;
\endif
};
# The same for queries 3 bits from a row of the crowd, one bit in each of
# three 16-bit blocks, the top one among them: only the table whose prefix is
# the fourth block finds that row, and its probe spans the crowd, whose
# leaves its downlinks' summaries rule in or out. The final check verifies
# every downlink's summary, which the crowd's inserts and splits keep narrow
# (random keys saturate theirs at the build).
my $check_crowd = q{
\set j random(0, 39999)
\set a random(48, 63)
\set c random(16, 31)
\set d random(0, 15)
\set k random(3, 6)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT (coalesce(test_fp(900000009 + 10 * :j), fp_of('p'))::bigint # (1::bigint << :a) # (1::bigint << :c) # (1::bigint << :d))::simhash64 AS q \gset
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT count(*) AS idx FROM fps WHERE fp <@ simhash_ball(':q', :k) \gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SELECT count(*) AS seq FROM fps WHERE fp <@ simhash_ball(':q', :k) \gset
END;
\if :idx != :seq
SELECT ('crowd: index ' || :idx || ', seqscan ' || :seq || ' for q = :q, k = ' || :k)::int;
\endif
};
my $check_knn = q{
\set g random(1, 200000)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SELECT coalesce(string_agg(d::text, ','), '') AS idx FROM (SELECT fp <-> test_fp(:g) AS d FROM fps WHERE fp IS NOT NULL ORDER BY fp <-> test_fp(:g) LIMIT 5) s \gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off;
SELECT coalesce(string_agg(d::text, ','), '') AS seq FROM (SELECT d FROM (SELECT fp <-> test_fp(:g) AS d FROM fps WHERE fp IS NOT NULL) a ORDER BY d LIMIT 5) s \gset
END;
SELECT (':idx' = ':seq')::int AS same \gset
\if :same = 0
SELECT ('knn index :idx, seqscan :seq for g = :g')::int;
\endif
};

$node->pgbench(
	"--no-vacuum --client=8 --jobs=2 --time=$seconds",
	0,
	[qr{processed: [1-9]}],
	[],
	'8 clients insert, update, delete, vacuum and query concurrently',
	{
		%{ write_scripts('fps', 60000) },
		'simhash_within@6' => $check_within,
		'simhash_within_crowd@3' => $check_crowd,
		'simhash_knn@3' => $check_knn,
	});

$node->safe_psql('postgres', 'VACUUM fps');
compare_with_seqscan($node, $node, 'fps', 'fps_idx', $method, [0, 1, 2, 3, 4, 6], 'after pgbench');
compare_knn_with_seqscan($node, $node, 'fps', 'fps_idx', $method, 10, 'after pgbench');
index_check($node, 'fps_idx', 1, 'after pgbench', method => $method);

$node->stop;
done_testing();
