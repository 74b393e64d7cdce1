# Every page change of the simhash index is WAL-logged correctly: a streaming
# standby with wal_consistency_checking = 'generic' replays build, insert,
# delete, vacuum, reindex and an UNLOGGED table's init fork without an
# inconsistent page, and answers exactly like the primary.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
my @ks = (0, 1, 2, 3, 4, 6);

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
# The primary attaches a full-page image to every generic record; the standby
# compares it with the page its own redo produced and stops (FATAL) on any
# difference.
$primary->append_conf('postgresql.conf', qq{
wal_consistency_checking = 'generic'
max_wal_size = 1GB
});
$primary->start;
# The checking images multiply WAL: a slot keeps what the standby still needs.
$primary->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('standby_slot')");
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby_slot'");
$standby->start;

create_test_schema($primary);
create_queries($primary);

sub catch_up_and_compare
{
	my ($label) = @_;
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	compare_with_seqscan($primary, $primary, 'fps', 'fps_idx', $method, \@ks, "primary, $label");
	compare_with_seqscan($primary, $standby, 'fps', 'fps_idx', $method, \@ks, "standby, $label");
	compare_knn_with_seqscan($primary, $standby, 'fps', 'fps_idx', $method, 10, "standby, $label");
	ok(!$standby->log_contains('inconsistent page found'), "$label: no inconsistent page on the standby");
}

# bulk build on existing rows
insert_rows($primary, 'fps', 1, 20000);
create_simhash_index($primary, $method, 'fps', 'fps_idx', 3);
catch_up_and_compare('after build');

# single-row and multi-row inserts into the built index (leaf appends, splits)
$primary->safe_psql('postgres', "INSERT INTO fps (g, fp) VALUES (20001, test_fp(20001))");
insert_rows($primary, 'fps', 20002, 35000);
catch_up_and_compare('after inserts');

# delete a slice of every kind of row, then vacuum removes their entries and
# reports them as rows, not entries (one per table, or one in the NULL list)
my $deleted = $primary->safe_psql('postgres',
	'WITH d AS (DELETE FROM fps WHERE g % 3 = 0 OR g BETWEEN 5000 AND 9000 RETURNING 1) SELECT count(*) FROM d');
# (PostgreSQL 15 reports the per-index counts at DEBUG2.)
my ($rc, $out, $err) = $primary->psql('postgres', 'SET client_min_messages = debug2; VACUUM (VERBOSE) fps');
is($rc, 0, 'VACUUM VERBOSE succeeded');
if ($method eq 'simhash')
{
	my $left = $primary->safe_psql('postgres', 'SELECT count(*) FROM fps');
	my ($contains, $removed) =
	  $err =~ /index "fps_idx" now contains (\d+) row versions in \d+ pages\s+DETAIL:\s+(\d+) index row versions were removed/;
	is($contains, $left, 'VACUUM counts the rows left in the index');
	is($removed, $deleted, 'VACUUM counts the rows removed from the index');
}
catch_up_and_compare('after delete + vacuum');

# freed space reused by new inserts, then updates (new tuple versions)
insert_rows($primary, 'fps', 35001, 42000);
$primary->safe_psql('postgres', 'UPDATE fps SET fp = test_fp(g + 100000) WHERE g % 7 = 1');
$primary->safe_psql('postgres', 'VACUUM fps');
catch_up_and_compare('after reinsert + update + vacuum');

$primary->safe_psql('postgres', 'REINDEX INDEX fps_idx');
catch_up_and_compare('after reindex');

# Index-only scans on the primary, plain index scans on the standby: replay
# of VACUUM's leaf changes takes no cleanup lock, so there the pin on the
# leaf of a returned row would not hold VACUUM's heap pass back.
my $ios_query = 'SET enable_seqscan = off; SET enable_bitmapscan = off; '
  . 'EXPLAIN (COSTS OFF) SELECT fp FROM fps WHERE fp <@ simhash_ball(test_fp(7), 3)';
if ($method eq 'simhash')
{
	like($primary->safe_psql('postgres', $ios_query), qr/Index Only Scan using fps_idx/, 'primary: index-only scan');
	my $plan = $standby->safe_psql('postgres', $ios_query);
	like($plan, qr/Index Scan using fps_idx/, 'standby: plain index scan');
	unlike($plan, qr/Index Only Scan/, 'standby: no index-only scan');
}

# an index built on an empty table and filled by inserts only
$primary->safe_psql('postgres', 'CREATE TABLE grow (id bigserial PRIMARY KEY, g bigint, fp simhash64)');
create_simhash_index($primary, $method, 'grow', 'grow_idx', 6);
insert_rows($primary, 'grow', 1, 8000);
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
compare_with_seqscan($primary, $standby, 'grow', 'grow_idx', $method, [3, 6, 8], 'standby, grown index');

# UNLOGGED: the init fork written by ambuildempty must be WAL-logged so the
# standby (and a promoted standby) sees an empty, valid index.
insert_rows($primary, 'ulog', 1, 3000, unlogged => 1);
create_simhash_index($primary, $method, 'ulog', 'ulog_idx', 3);
compare_with_seqscan($primary, $primary, 'ulog', 'ulog_idx', $method, [0, 3], 'primary, unlogged');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
ok(!$standby->log_contains('inconsistent page found'), 'unlogged build: no inconsistent page');

# index checks on both sides: the check only reads, so it must work on a
# standby too, with and without heapallindexed
index_check($primary, 'fps_idx', 1, 'primary', method => $method);
index_check($primary, 'grow_idx', 1, 'primary', method => $method);
index_check($primary, 'ulog_idx', 1, 'primary', method => $method);
# On a hot standby the check takes AccessShareLock and, with heapallindexed,
# checks the rows an MVCC snapshot sees.
index_check($standby, 'fps_idx', 0, 'standby', method => $method);
index_check($standby, 'fps_idx', 1, 'standby', method => $method);
index_check($standby, 'grow_idx', 1, 'standby', method => $method);

# Runs simhash_index_check($index, true) on the standby held at the
# extension's test pause (advisory lock $lock) while $meanwhile writes on the
# primary and the standby replays it; returns what the check printed (and
# its error).
sub check_while_paused
{
	my ($index, $lock, $where, $meanwhile) = @_;
	my $holder = $standby->background_psql('postgres');
	$holder->query_safe("SELECT pg_advisory_lock($lock)");
	my $checker = $standby->background_psql('postgres', on_error_stop => 0);
	$checker->query_until(qr/go/,
		"SET simhash.test_pause_lock = $lock;\n\\echo go\nSELECT 'checked' FROM simhash_index_check('$index', true);\n");
	ok( $standby->poll_query_until('postgres',
			"SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND NOT granted)"),
		"standby: the check of $index waits $where");
	$meanwhile->();
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	$holder->query_safe("SELECT pg_advisory_unlock($lock)");
	my $res = $checker->query("SELECT 'done'");
	$res .= ' ' . ($checker->{stderr} // '');
	$checker->quit;
	$holder->quit;
	return $res;
}

# The standby check while replay splits the pages it walks: the check waits
# after copying the root of the grown index's first table; the primary then
# doubles every key, which splits the leaves, and the standby replays it
# before the check reads any leaf. A split leaf then ends below the bound the
# root's copy gives it, and the pages split off it must be followed by
# right-links (a walk as strict as the primary's reports "high key differs
# from the parent's").
if ($method eq 'simhash')
{
	# (Height 2: the root's children are the leaves.)
	my $pages = $standby->safe_psql('postgres', 'SELECT pages FROM simhash_index_info(\'grow_idx\') WHERE height = 2');
	isnt($pages, '', 'standby: the grown index is two levels high');
	my $res = check_while_paused('grow_idx', 4545, 'inside its walk',
		sub { $primary->safe_psql('postgres', 'INSERT INTO grow (g, fp) SELECT g, fp FROM grow') });
	like($res, qr/^checked\s+done\s*$/, 'standby: a check whose leaves split under it during replay passes')
	  or diag($res);
	my $after = $standby->safe_psql('postgres', 'SELECT pages FROM simhash_index_info(\'grow_idx\')');
	cmp_ok($after, '>', $pages * 1.5, "standby: the leaves had split ($pages pages, then $after)");
	compare_with_seqscan($primary, $standby, 'grow', 'grow_idx', $method, [3, 6], 'standby, after the doubled keys');
}

# heapallindexed on the standby compares the walk with the rows of a
# snapshot taken before it: rows committed during the walk are in the tables
# walked after their replay and not in those walked before, so a snapshot
# that saw them would report them missing. The check waits between its first
# and second table (the index is one leaf per table: no internal page to wait
# at) while the primary inserts rows and the standby replays them; it passes.
# With the snapshot taken after the walk it reports "table 0 lacks the heap
# row".
if ($method eq 'simhash')
{
	$primary->safe_psql('postgres', q{
CREATE TABLE snap (g int, fp simhash64);
INSERT INTO snap SELECT g, test_fp(g) FROM generate_series(1, 100) g;
CREATE INDEX snap_idx ON snap USING simhash (fp)});
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	is($standby->safe_psql('postgres', 'SELECT height FROM simhash_index_info(\'snap_idx\')'), '1',
		'standby: each table of the small index is one leaf');
	my $res = check_while_paused('snap_idx', 4646, 'between two tables',
		sub { $primary->safe_psql('postgres', 'INSERT INTO snap SELECT g, test_fp(g) FROM generate_series(101, 150) g') });
	like($res, qr/^checked\s+done\s*$/, 'standby: rows committed during the walk are not checked against it')
	  or diag($res);
	index_check($standby, 'snap_idx', 1, 'standby, after the rows committed during a check', method => $method);
}

# The same while the primary inserts in small transactions, the standby
# checking until the inserts end: a load test (no error, no lock or recovery
# conflict) rather than a test of one race.
if ($method eq 'simhash')
{
	my ($out, $err) = ('', '');
	my $inserter = IPC::Run::start(
		[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $primary->connstr('postgres'), '-c', q{
DO $$ BEGIN FOR i IN 0..19 LOOP
  INSERT INTO grow (g, fp) SELECT g, test_fp(g) FROM generate_series(8001 + i * 500, 8500 + i * 500) g;
  COMMIT;
END LOOP; END $$;} ],
		'>', \$out, '2>', \$err);
	my ($runs, $failed) = (0, '');
	while ($inserter->pumpable || $runs == 0)
	{
		my ($rc, undef, $cerr) = $standby->psql('postgres',
			"SELECT simhash_index_check('grow_idx', true), simhash_index_check('fps_idx', false)");
		$runs++;
		$failed ||= $cerr if $rc != 0;
		$inserter->pump_nb if $inserter->pumpable;
	}
	ok($inserter->finish, 'concurrent inserts on the primary succeed') or diag($err);
	is($failed, '', "standby checks during replay of splits pass ($runs runs)");
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	index_check($standby, 'grow_idx', 1, 'standby, after concurrent inserts', method => $method);
	compare_with_seqscan($primary, $standby, 'grow', 'grow_idx', $method, [3, 6], 'standby, after concurrent inserts');
}

# heapallindexed on the standby, in a REPEATABLE READ transaction whose
# snapshot predates the index: the snapshot still sees a row deleted before
# the build, which the index never held. The check compares the index with a
# snapshot of its own, taken when it runs, so it passes (it used the
# transaction's and reported corruption).
if ($method eq 'simhash')
{
	$primary->safe_psql('postgres', q{
CREATE TABLE rr (g int, fp simhash64);
INSERT INTO rr SELECT g, test_fp(g) FROM generate_series(1, 100) g});
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	my $rr = $standby->background_psql('postgres', on_error_stop => 0);
	$rr->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$rr->query_safe('SELECT 1');
	$primary->safe_psql('postgres', 'DELETE FROM rr WHERE g = 50');
	$primary->safe_psql('postgres', "CREATE INDEX rr_idx ON rr USING $method (fp)");
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	my $res = $rr->query("SELECT 'passed' FROM simhash_index_check('rr_idx', true); SELECT 'done'");
	like($res, qr/^passed\s+done$/, 'standby: heapallindexed from an older REPEATABLE READ snapshot passes')
	  or diag($res . ' ' . ($rr->{stderr} // ''));
	$rr->quit;
}

# A promoted standby: the unlogged table restarts empty from its init fork and
# its index works; the logged index still answers.
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby did not promote';
is($standby->safe_psql('postgres', 'SELECT count(*) FROM ulog'), '0', 'promoted: unlogged table is empty');
$standby->safe_psql('postgres', 'INSERT INTO ulog (g, fp) SELECT g, test_fp(g) FROM generate_series(1, 500) g');
compare_with_seqscan($standby, $standby, 'ulog', 'ulog_idx', $method, [0, 3], 'promoted, unlogged refilled');
index_check($standby, 'ulog_idx', 1, 'promoted', method => $method);
compare_with_seqscan($standby, $standby, 'fps', 'fps_idx', $method, [3], 'promoted');
like($standby->safe_psql('postgres', $ios_query), qr/Index Only Scan using fps_idx/, 'promoted: index-only scan again')
  if $method eq 'simhash';
ok(!$standby->log_contains('inconsistent page found'), 'no inconsistent page at all on the standby');

$standby->stop;
$primary->stop;
done_testing();
