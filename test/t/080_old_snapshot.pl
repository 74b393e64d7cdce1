# old_snapshot_threshold: VACUUM may then remove rows that a snapshot older
# than the threshold still sees. A scan under such a snapshot that reads a
# page changed since (a leaf, or a root that split) must fail with "snapshot
# too old", as a B-tree scan does, not return an answer short of the removed
# rows; one that reads only leaves unchanged since its snapshot must answer.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();

my $node = PostgreSQL::Test::Cluster->new('old_snapshot');
$node->init;
# The smallest threshold that limits VACUUM: PostgreSQL 15 tracks snapshots'
# xmin by the minute (its testing value 0 never lets VACUUM remove early).
$node->append_conf('postgresql.conf', "old_snapshot_threshold = '1min'\nautovacuum = off");
$node->start;
create_test_schema($node);
# The even ids lie within 3 bits of fp_of('c') (deleted below), the odd ones
# far from it.
for my $table ('changed', 'unchanged')
{
	$node->safe_psql('postgres', qq{
CREATE TABLE $table (id bigint, fp simhash64);
INSERT INTO $table SELECT g, CASE WHEN g % 2 = 0 THEN flip_bits(fp_of('c'), 'x' || g, (g % 4)::int)
                                  ELSE fp_of('r' || g) END
  FROM generate_series(1, 6000) g;
});
	create_simhash_index($node, $method, $table, "${table}_idx", 3);
	$node->safe_psql('postgres', "VACUUM ANALYZE $table");
}
# Every tree of this index is one leaf, its root, while the snapshots are
# taken, so their sessions cache no directory and walk from the roots. (They
# keep that cache: nothing invalidates the index's relcache entry, as VACUUM
# reports its entry count as an estimate and leaves its pg_class row alone.)
# After VACUUM has removed the near rows early, inserts of far rows split each
# root into an internal page over new leaves. The far rows differ only in
# their low 13 bits, so the downlinks' key summaries share the other 51 and
# rule every leaf out for a query near fp_of('c'): the scan reads no leaf,
# and only the test of the root itself can refuse it.
$node->safe_psql('postgres', qq{
CREATE TABLE split_root (id bigint, fp simhash64);
INSERT INTO split_root SELECT g, CASE WHEN g % 2 = 0 THEN flip_bits(fp_of('c'), 'x' || g, (g % 4)::int)
                                      ELSE (fp_of('far')::bigint # g)::simhash64 END
  FROM generate_series(1, 200) g;
});
create_simhash_index($node, $method, 'split_root', 'split_root_idx', 3);
$node->safe_psql('postgres', 'VACUUM ANALYZE split_root');
is($node->safe_psql('postgres', "SELECT height FROM simhash_index_info('split_root_idx')"), '1',
	'split root: each tree is one leaf')
  if $method eq 'simhash';
$node->safe_psql('postgres', 'CREATE TABLE control (v bigint); INSERT INTO control SELECT generate_series(1, 6000);
CREATE INDEX control_idx ON control (v); VACUUM ANALYZE control');

my $ball = "simhash_ball(fp_of('c'), 3)";
my $off = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = off;';
my $bitmap = 'SET enable_bitmapscan = on;';
my $index = 'SET enable_indexscan = on;';
my @cases = (
	['bitmap scan', $bitmap, "SELECT count(id) FROM changed WHERE fp <@ $ball", qr/Bitmap Index Scan on changed_idx/],
	['plain index scan', $index, "SELECT count(id) FROM changed WHERE fp <@ $ball", qr/Index Scan using changed_idx/],
	['index-only scan', $index, "SELECT count(fp) FROM changed WHERE fp <@ $ball",
		qr/Index Only Scan using changed_idx/],
	['ORDER BY <->', $index,
		"SELECT sum(id) FROM (SELECT id FROM changed ORDER BY fp <-> fp_of('c') LIMIT 500) s",
		qr/Index Scan using changed_idx/],
	['B-tree (the premise)', $index, 'SELECT count(v) FROM control WHERE v % 2 = 0 AND v > 0',
		qr/Index (Only )?Scan using control_idx/],
	['split root', $bitmap, "SELECT count(id) FROM split_root WHERE fp <@ $ball",
		qr/Bitmap Index Scan on split_root_idx/],
	['leaves unchanged', $bitmap, "SELECT count(id) FROM unchanged WHERE fp <@ $ball",
		qr/Bitmap Index Scan on unchanged_idx/],
);

# Each case's session takes its snapshot and answers once before the rows go.
my %before;
for my $case (@cases)
{
	my ($label, $on, $sql, $plan) = @$case;
	# (The sessions wait out two minute boundaries: 62-122 s.)
	my $s = $node->background_psql('postgres', on_error_stop => 0, timeout => 600);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$s->query_safe("$off $on");
	like($s->query_safe("EXPLAIN (COSTS OFF) $sql"), $plan, "$label: planned") if $method eq 'simhash';
	$before{$label} = $s->query_safe($sql);
	push @$case, $s;
}
is($before{$_}, '3000', "$_: the old snapshot sees 3,000 rows within 3 bits")
  for ('bitmap scan', 'plain index scan', 'index-only scan');
is($before{'split root'}, '100', 'split root: the old snapshot sees 100 rows within 3 bits');

# An index-only scan reads each row's leaf again after its walk, to check the
# entry is still there. This one, for a row to be deleted (radius 0: its walk
# ends with its first batch), walks before the rows go, then waits at its
# check (the extension's test pause, holding no pin on the index) until VACUUM
# has removed them early: the check must refuse as the walk would.
my ($holder, $checker);
my $lock = 8080;
if ($method eq 'simhash')
{
	my $one = "simhash_ball('" . $node->safe_psql('postgres', 'SELECT fp FROM changed WHERE id = 2') . "', 0)";
	$holder = $node->background_psql('postgres', timeout => 600);
	$holder->query_safe("SELECT pg_advisory_lock($lock)");
	$checker = $node->background_psql('postgres', on_error_stop => 0, timeout => 600);
	$checker->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$checker->query_safe("$off $index");
	like($checker->query_safe("EXPLAIN (COSTS OFF) SELECT count(fp) FROM changed WHERE fp <@ $one"),
		qr/Index Only Scan using changed_idx/, 'index-only check: planned');
	cmp_ok($checker->query_safe("SELECT count(fp) FROM changed WHERE fp <@ $one"), '>=', 1,
		'index-only check: the old snapshot sees the row');
	$checker->query_until(qr/go/,
		"SET simhash.test_pause_lock = $lock;\n\\echo go\nSELECT count(fp) FROM changed WHERE fp <@ $one;\n");
	ok( $node->poll_query_until('postgres',
			"SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND NOT granted)"),
		'index-only check: the scan walked and waits before its first check');
}

# The rows go at once. A snapshot taken in the next minute records an xmin
# past their deletion; a minute later VACUUM may remove what snapshots of
# the first minute still see, and does.
$node->safe_psql('postgres',
	'DELETE FROM changed WHERE id % 2 = 0; DELETE FROM control WHERE v % 2 = 0; DELETE FROM split_root WHERE id % 2 = 0');
sub next_minute { sleep(61 - time() % 60); return; }
next_minute();
$node->safe_psql('postgres', 'SELECT 1');
next_minute();
$node->safe_psql('postgres', 'VACUUM changed; VACUUM control; VACUUM split_root');
is($node->safe_psql('postgres', "SELECT count(*) FROM changed WHERE fp <@ $ball"), '0',
	'a new snapshot sees none of them');
is($node->safe_psql('postgres', "SELECT entries FROM simhash_index_info('split_root_idx')"),
	'400', 'split root: VACUUM removed the near rows\' entries from the 4 roots')
  if $method eq 'simhash';
$node->safe_psql('postgres', qq{
INSERT INTO split_root SELECT g, (fp_of('far')::bigint # g)::simhash64 FROM generate_series(201, 4200) g;
});
if ($method eq 'simhash')
{
	# 6 pages before (the metapage, 4 roots, the NULL list); a root split adds 2.
	is( $node->safe_psql('postgres',
			"SELECT height = 2 AND pages >= 6 + 4 * 2 FROM simhash_index_info('split_root_idx')"),
		't', 'split root: every root split');
}

for my $case (@cases)
{
	my ($label, $on, $sql, $plan, $s) = @$case;
	my $out = $s->query($sql);
	if ($label eq 'leaves unchanged')
	{
		is($out, $before{$label}, "$label: the old snapshot still answers, unchanged");
	}
	else
	{
		like($s->{stderr}, qr/snapshot too old/, "$label: refused with \"snapshot too old\"")
		  or diag("answered $out (before: $before{$label})");
	}
	$s->quit;
}
if ($method eq 'simhash')
{
	$holder->query_safe("SELECT pg_advisory_unlock($lock)");
	my $out = $checker->query("SELECT 'done'");
	like($checker->{stderr}, qr/snapshot too old/, 'index-only check: refused with "snapshot too old"')
	  or diag("answered $out");
	$checker->quit;
	$holder->quit;
}
index_check($node, 'changed_idx', 1, 'after the early removal', method => $method);

$node->stop;
done_testing();
