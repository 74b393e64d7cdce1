# Crash recovery: the primary and its backends are killed with SIGKILL (no
# shutdown checkpoint, no statement finished) while pgbench inserts, updates, deletes and vacuums and while a
# large insert is still uncommitted.  After redo the index answers exactly
# like a sequential scan and passes its check, before and after VACUUM.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
my @ks = (0, 1, 3, 4, 6);

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', 'max_wal_size = 1GB');
$node->start;
create_test_schema($node);
create_queries($node);
insert_rows($node, 'fps', 1, 20000);
create_simhash_index($node, $method, 'fps', 'fps_idx', 3);
# a second index on the same column with the wider layout for k <= 6
create_simhash_index($node, $method, 'fps', 'fps_idx6', 6);

my $basedir = $node->basedir;
PostgreSQL::Test::Utils::append_to_file("$basedir/write.sql", q{
\set g random(100000, 100000000)
\set r random(1, 20000)
BEGIN;
INSERT INTO fps (g, fp) VALUES (:g, test_fp(:g));
INSERT INTO fps (g, fp) SELECT g, test_fp(g) FROM generate_series(:g + 1, :g + 20) g;
DELETE FROM fps WHERE id = :r;
UPDATE fps SET fp = test_fp(:g + 7) WHERE id = :r + 1;
END;
});
PostgreSQL::Test::Utils::append_to_file("$basedir/vacuum.sql", "VACUUM fps;\n");

# an open transaction holding uncommitted index entries at the crash
my $open = $node->background_psql('postgres');
$open->query_safe('BEGIN');
$open->query_safe('INSERT INTO fps (g, fp) SELECT g, test_fp(g) FROM generate_series(200000001, 200005000) g');

my ($out, $err) = ('', '');
my $bench = IPC::Run::start(
	[
		'pgbench', '-n', '-c', '2', '-T', '120',
		'-h', $node->host, '-p', $node->port,
		'-f', "$basedir/write.sql\@20", '-f', "$basedir/vacuum.sql\@1", 'postgres'
	],
	'>', \$out, '2>', \$err);

# crash once the workload has demonstrably written through the index
$node->poll_query_until('postgres', 'SELECT count(*) > 40000 FROM fps')
  or die 'pgbench made no progress';
my @clients = split /\n/, $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
my %killed = map { $_ => 1 } kill9_all($node);
ok(@clients >= 3 && !grep({ !$killed{$_} } @clients),
	'kill -9 reached the backends of pgbench and of the open transaction');
# pgbench's wording for a lost server depends on where the crash caught each
# client; its exit status does not.
my $bench_succeeded = $bench->finish;
note("pgbench stderr (expected to report the lost connection): $err");
ok(!$bench_succeeded, 'pgbench was interrupted by the crash');
eval { $open->quit };

$node->start;
my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM fps');
cmp_ok($n, '>', 40000, 'committed rows survived the crash');
is($node->safe_psql('postgres', 'SELECT count(*) FROM fps WHERE g > 200000000'), '0',
	'the uncommitted insert is gone');

compare_with_seqscan($node, $node, 'fps', 'fps_idx', $method, \@ks, 'after crash',
	hide => ['fps_idx6']);
compare_knn_with_seqscan($node, $node, 'fps', 'fps_idx', $method, 10, 'after crash',
	hide => ['fps_idx6']);
index_check($node, 'fps_idx', 1, 'after crash', method => $method);
index_check($node, 'fps_idx6', 1, 'after crash', method => $method);

# VACUUM removes the aborted entries; the index still answers and checks
$node->safe_psql('postgres', 'VACUUM fps');
insert_rows($node, 'fps', 300000001, 300003000);
compare_with_seqscan($node, $node, 'fps', 'fps_idx', $method, \@ks, 'after vacuum + inserts',
	hide => ['fps_idx6']);
compare_with_seqscan($node, $node, 'fps', 'fps_idx6', $method, [3, 6], 'max_distance 6, after vacuum',
	hide => ['fps_idx']);
index_check($node, 'fps_idx', 1, 'after vacuum', method => $method);
index_check($node, 'fps_idx6', 1, 'after vacuum', method => $method);

# a crash after a build that has not committed: its WAL (pages logged at the
# end of the build) replays harmlessly and leaves no index behind
my $build = $node->background_psql('postgres');
$build->query_safe('BEGIN');
$build->query_safe("CREATE INDEX fps_idx_crash ON fps USING $method (fp)");
kill9_all($node);
eval { $build->quit };
$node->start;
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_class WHERE relname = 'fps_idx_crash'"), '0',
	'an uncommitted build left no index behind');
compare_with_seqscan($node, $node, 'fps', 'fps_idx', $method, [3], 'after crash during build',
	hide => ['fps_idx6']);

$node->stop;
done_testing();
