# Concurrent builds under writes: CREATE INDEX CONCURRENTLY, then REINDEX
# CONCURRENTLY, again and again while 4 pgbench clients insert, update and
# delete. A concurrent build's validation pass (ambulkdelete collecting the
# index's TIDs, then the rows the build missed inserted through aminsert) must
# meet rows arriving meanwhile: each build checks that some were inserted
# while it ran. After each build the new index passes its heapallindexed check
# and, under one REPEATABLE READ snapshot with the other simhash index hidden,
# answers like a sequential scan at k = 0..4.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
my $seconds = $ENV{SIMHASH_PGBENCH_SECONDS} // 60;
# (CONCURRENTLY is the core's; the B-tree harness mode would test only that.)
plan skip_all => 'builds the simhash access method only' if $method ne 'simhash';

my $node = PostgreSQL::Test::Cluster->new('cic');
$node->init;
$node->append_conf('postgresql.conf', 'max_wal_size = 1GB');
$node->start;
create_test_schema($node);
create_queries($node);
insert_rows($node, 'fps', 1, 40000);
create_simhash_index($node, $method, 'fps', 'fps_idx', 3);

# One round's builds and index checks timed without writers: pgbench then
# runs at least three times that (rounds under load take longer), so that
# even the first round's builds meet writes when SIMHASH_PGBENCH_SECONDS is
# short or the machine slow.
my $dry_start = time;
$node->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY fps_cic ON fps USING simhash (fp) WITH (max_distance = 3)');
index_check($node, 'fps_cic', 1, 'without writers, CREATE INDEX CONCURRENTLY');
$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY fps_cic');
index_check($node, 'fps_cic', 1, 'without writers, REINDEX CONCURRENTLY');
$node->safe_psql('postgres', 'DROP INDEX CONCURRENTLY fps_cic');
my $dry = time - $dry_start;
$seconds = int(3 * $dry) + 10 if $seconds < int(3 * $dry) + 10;

my $basedir = $node->basedir;
my @files;
my $scripts = write_scripts('fps', 40000);
# VACUUM's lock conflicts with a concurrent build's: the clients would queue
# behind the build instead of writing through it.
delete $scripts->{'simhash_vacuum@1'};
for my $name (sort keys %$scripts)
{
	my ($file, $weight) = split /\@/, $name;
	PostgreSQL::Test::Utils::append_to_file("$basedir/$file.sql", $scripts->{$name});
	push @files, '-f', "$basedir/$file.sql\@$weight";
}
my ($out, $err) = ('', '');
my $bench = IPC::Run::start(
	[
		'pgbench', '--no-vacuum', '--client=4', '--jobs=2', "--time=$seconds",
		'-h', $node->host, '-p', $node->port, @files, 'postgres'
	],
	'>', \$out, '2>', \$err);

# For each k and query: how many rows match, and their sorted ids.
my @answers = map { SimhashTest::within_sql('fps', $_, 'operator') } 0 .. 4;
my $answers = join(";\n", @answers);
my $hide = 'BEGIN ISOLATION LEVEL REPEATABLE READ; DROP INDEX fps_idx;';
my $via_index = 'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;';
my $via_seq = 'SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;';

# Under one snapshot: the answers through the index, then those of the
# sequential scan, which psql prints on either side of a marker line.
sub answers_agree
{
	my ($label) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $plan = $node->safe_psql('postgres', "$hide $via_index EXPLAIN (COSTS OFF) $answers[-1]; ROLLBACK");
	like($plan, qr/Index (Only )?Scan using fps_cic\b/, "$label: plan uses fps_cic");
	my ($index, $seq) = split /\n--\n/,
	  $node->safe_psql('postgres', "$hide $via_index $answers;\n\\echo --\n$via_seq $answers; ROLLBACK");
	my $matches = 0;
	$matches += (split /\|/)[2] for split /\n/, $seq;
	cmp_ok($matches, '>', 0, "$label: the queries match rows");
	is($index, $seq, "$label: fps_cic == seqscan under one snapshot");
	return;
}

# Runs a concurrent build and fails unless rows were inserted while it ran.
sub build_while_writing
{
	my ($sql, $label) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $last_id = "SELECT last_value FROM fps_id_seq";
	my $before = $node->safe_psql('postgres', $last_id);
	$node->safe_psql('postgres', $sql);
	cmp_ok($node->safe_psql('postgres', $last_id), '>', $before, "$label: rows were inserted during the build");
	return;
}

# A round starts only while it can end before pgbench does, judged by the
# slowest round so far, so that every build meets writes on a slow machine too.
my $bench_ends = time + $seconds;
my ($rounds, $slowest) = (0, 0);
while ($rounds == 0 || time + 1.5 * $slowest < $bench_ends)
{
	$rounds++;
	my $round_start = time;
	build_while_writing('CREATE INDEX CONCURRENTLY fps_cic ON fps USING simhash (fp) WITH (max_distance = 3)',
		"round $rounds, CREATE INDEX CONCURRENTLY");
	index_check($node, 'fps_cic', 1, "round $rounds, CREATE INDEX CONCURRENTLY");
	answers_agree("round $rounds, CREATE INDEX CONCURRENTLY");
	build_while_writing('REINDEX INDEX CONCURRENTLY fps_cic', "round $rounds, REINDEX CONCURRENTLY");
	index_check($node, 'fps_cic', 1, "round $rounds, REINDEX CONCURRENTLY");
	answers_agree("round $rounds, REINDEX CONCURRENTLY");
	$node->safe_psql('postgres', 'DROP INDEX CONCURRENTLY fps_cic');
	$slowest = time - $round_start if time - $round_start > $slowest;
}
ok($bench->finish, "pgbench ran alongside $rounds rounds of concurrent builds");
like($out, qr/processed: [1-9]/, 'pgbench committed transactions');
diag($err) if $err =~ /error/i;

# The original index took every write of the run.
$node->safe_psql('postgres', 'VACUUM fps');
compare_with_seqscan($node, $node, 'fps', 'fps_idx', $method, [0, 1, 3, 4], 'after the run');
index_check($node, 'fps_idx', 1, 'after the run');

$node->stop;
done_testing();
