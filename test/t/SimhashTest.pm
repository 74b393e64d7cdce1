# Shared helpers for the simhash index TAP tests: deterministic test data
# (random, near-duplicate families, a run of identical values, a shared
# 40-bit prefix, NULLs), index answers compared with a sequential scan, and
# the index check function.
package SimhashTest;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(index_method create_test_schema insert_rows create_queries
  create_simhash_index compare_with_seqscan compare_knn_with_seqscan
  index_check kill9_all write_scripts);

# The tests exist to exercise the simhash access method.  They skip only when
# the source tree does not define it yet; SIMHASH_TEST_FAKE_AM=btree lets the
# harness itself be debugged against a B-tree (plans are then not asserted).
sub index_method
{
	return $ENV{SIMHASH_TEST_FAKE_AM} if $ENV{SIMHASH_TEST_FAKE_AM};
	my $defined = 0;
	for my $f (glob('src/sql/*.sql'))
	{
		$defined = 1 if slurp_file($f) =~ /CREATE\s+ACCESS\s+METHOD\s+simhash/i;
	}
	plan skip_all => 'the simhash access method is not in this source tree'
	  unless $defined;
	return 'simhash';
}

# test_fp(g) is a pure function of g, so rows inserted later by pgbench or a
# background session come from the same distribution as the initial load.
sub create_test_schema
{
	my ($node, $db) = @_;
	$db //= 'postgres';
	$node->safe_psql($db, q{
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE FUNCTION fp_of(seed text) RETURNS simhash64 LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT ('x' || substr(md5(seed), 1, 16))::bit(64)::bigint::simhash64 $$;
-- flips at most n pseudo-random bits (two draws may hit the same bit)
CREATE FUNCTION flip_bits(v simhash64, seed text, n int) RETURNS simhash64 LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT (v::bigint # coalesce((SELECT bit_or(1::bigint << (get_byte(decode(md5(seed || i), 'hex'), 0) % 64))
                                      FROM generate_series(1, n) i), 0))::simhash64 $$;
CREATE FUNCTION test_fp(g bigint) RETURNS simhash64 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN g % 97 = 0 THEN NULL
    WHEN g % 10 < 6 THEN fp_of('r' || g)
    WHEN g % 10 < 8 THEN flip_bits(fp_of('f' || g % 50), 'm' || g, (g % 9)::int)
    WHEN g % 10 = 8 THEN fp_of('dup')
    ELSE ((fp_of('p')::bigint & ~16777215::bigint) | (fp_of('s' || g)::bigint & 16777215))::simhash64
  END $$;
});
	return;
}

# Table $table (id, g, fp) with rows g = $from .. $to.
sub insert_rows
{
	my ($node, $table, $from, $to, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $unlogged = $opt{unlogged} ? 'UNLOGGED' : '';
	$node->safe_psql($db,
		"CREATE $unlogged TABLE IF NOT EXISTS $table (id bigserial PRIMARY KEY, g bigint, fp simhash64)");
	$node->safe_psql($db,
		"INSERT INTO $table (g, fp) SELECT g, test_fp(g) FROM generate_series($from, $to) g");
	return;
}

# Query fingerprints: members of each kind, near variants of them (1-4 bits
# away), and random values far from everything.
sub create_queries
{
	my ($node, $db) = @_;
	$db //= 'postgres';
	$node->safe_psql($db, q{
DROP TABLE IF EXISTS simhash_q;
CREATE TABLE simhash_q (qid serial PRIMARY KEY, fp simhash64 NOT NULL);
INSERT INTO simhash_q (fp)
  SELECT test_fp(g) FROM unnest(ARRAY[1, 2, 16, 27, 38, 49, 106, 117, 1009]) g;
INSERT INTO simhash_q (fp)
  SELECT flip_bits(test_fp(g), 'q' || g, 1 + g % 4) FROM unnest(ARRAY[3, 5, 17, 26, 37, 48, 59, 1019]) g;
INSERT INTO simhash_q (fp) SELECT fp_of('nowhere' || i) FROM generate_series(1, 5) i;
ANALYZE simhash_q;
});
	return;
}

sub create_simhash_index
{
	my ($node, $method, $table, $index, $max_distance, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $with = $method eq 'simhash' ? "WITH (max_distance = $max_distance)" : '';
	$node->safe_psql($db, "CREATE INDEX $index ON $table USING $method (fp) $with");
	return;
}

# The pgbench scripts of a write workload on a table made by insert_rows:
# single and 51-row inserts, updates and deletes of rows 1..$ids (by id),
# and VACUUM, keyed "name\@weight" as PostgreSQL::Test::Cluster::pgbench
# takes them.
sub write_scripts
{
	my ($table, $ids) = @_;
	return {
		'simhash_insert@10' =>
		  "\\set g random(200001, 900000000)\nINSERT INTO $table (g, fp) VALUES (:g, test_fp(:g));\n",
		'simhash_insert_many@2' =>
		  "\\set g random(200001, 900000000)\nINSERT INTO $table (g, fp) SELECT g, test_fp(g) FROM generate_series(:g, :g + 50) g;\n",
		'simhash_update@4' =>
		  "\\set r random(1, $ids)\n\\set g random(1, 200000)\nUPDATE $table SET fp = test_fp(:g) WHERE id = :r;\n",
		'simhash_delete@4' =>
		  "\\set r random(1, $ids)\nDELETE FROM $table WHERE id BETWEEN :r AND :r + 3;\n",
		'simhash_vacuum@1' => "VACUUM $table;\n",
	};
}

my %scan_settings = (
	seqscan => 'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_seqscan = on;',
	indexscan => 'SET enable_indexscan = on; SET enable_bitmapscan = off; SET enable_seqscan = off;',
	bitmapscan => 'SET enable_indexscan = off; SET enable_bitmapscan = on; SET enable_seqscan = off;',
);
my %plan_node = (indexscan => 'Index Scan', bitmapscan => 'Bitmap Index Scan');

# One statement answering every query at radius $k: qid, match count and the
# sorted ids, so a missing or extra row shows in the diff.
sub within_sql
{
	my ($table, $k, $form) = @_;
	my $pred = $form eq 'function'
	  ? "simhash_within(t.fp, q.fp, $k)"
	  : "t.fp <@ simhash_ball(q.fp, $k)";
	return "SELECT $k AS k, q.qid, count(s.id), string_agg(s.id::text, ',' ORDER BY s.id) "
	  . "FROM simhash_q q LEFT JOIN LATERAL (SELECT t.id FROM $table t WHERE $pred) s ON true "
	  . "GROUP BY q.qid ORDER BY q.qid";
}

sub plan_uses_index
{
	my ($node, $db, $mode, $sql, $index, $begin, $end) = @_;
	my $plan = $node->safe_psql($db, "$begin $scan_settings{$mode} EXPLAIN (COSTS OFF) $sql $end");
	my $re = $mode eq 'bitmapscan'
	  ? qr/Bitmap Index Scan on \Q$index\E\b/
	  : qr/Index (Only )?Scan using \Q$index\E\b/;
	diag($plan) unless $plan =~ $re;
	return $plan =~ $re ? 1 : 0;
}

sub hide_indexes
{
	my ($hide) = @_;
	return ('', '') unless $hide;
	return ('BEGIN; ' . join('', map { "DROP INDEX $_; " } @$hide), '; ROLLBACK');
}

# Index answers (index scan and bitmap scan, operator and function form) equal
# a sequential scan for every k in @$ks.  $node_idx may be a standby of $node_seq.
# hide => [indexes] drops other indexes on the table inside a transaction that
# is rolled back, so the planner can only use $index.
sub compare_with_seqscan
{
	my ($node_seq, $node_idx, $table, $index, $method, $ks, $label, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $db = $opt{db} // 'postgres';
	my @modes = @{ $opt{modes} // [qw(indexscan bitmapscan)] };
	my $fake = $method ne 'simhash';
	my ($begin, $end) = hide_indexes($opt{hide});

	for my $form (qw(operator function))
	{
		my @sqls = map { within_sql($table, $_, $form) } @$ks;
		my $expected = $node_seq->safe_psql($db, join(";\n", $scan_settings{seqscan}, @sqls));
		# a comparison that finds nothing proves nothing
		my $matches = 0;
		$matches += (split /\|/)[2] for split /\n/, $expected;
		cmp_ok($matches, '>', 0, "$label: $form: the queries match rows");
		for my $mode (@modes)
		{
			next if $form eq 'function' && $mode eq 'bitmapscan';
			unless ($fake)
			{
				ok(plan_uses_index($node_idx, $db, $mode, $sqls[-1], $index, $begin, $end),
					"$label: $form: plan uses $plan_node{$mode} on $index");
			}
			# an error shows in the diff instead of aborting the test file
			my ($rc, $got, $err) =
			  $node_idx->psql($db, $begin . join(";\n", $scan_settings{$mode}, @sqls) . $end);
			$got .= "\nERROR: $err" if $rc != 0;
			is($got, $expected, "$label: $form: $mode == seqscan at k = @$ks");
		}
	}
	return;
}

# ORDER BY fp <-> q LIMIT $n: the index returns the same distances, in
# non-decreasing order, as a sort of the whole table.  Ids can differ between
# ties, so each id's distance is recomputed rather than ids compared.
sub compare_knn_with_seqscan
{
	my ($node_seq, $node_idx, $table, $index, $method, $n, $label, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $db = $opt{db} // 'postgres';
	my $sql = "SELECT q.qid, (SELECT string_agg(d::text, ',' ORDER BY rn) FROM "
	  . "(SELECT t.fp <-> q.fp AS d, row_number() OVER () AS rn FROM "
	  . "(SELECT fp FROM $table t WHERE fp IS NOT NULL ORDER BY t.fp <-> q.fp LIMIT $n) t) s) "
	  . "FROM simhash_q q ORDER BY q.qid";
	my ($begin, $end) = hide_indexes($opt{hide});
	my $expected = $node_seq->safe_psql($db, "$scan_settings{seqscan} $sql");
	if ($method eq 'simhash')
	{
		my $plan = $node_idx->safe_psql($db,
			"$begin $scan_settings{indexscan} EXPLAIN (COSTS OFF) $sql $end");
		like($plan, qr/Index (Only )?Scan using \Q$index\E\b/, "$label: knn plan uses $index");
	}
	my $got = $node_idx->safe_psql($db, "$begin $scan_settings{indexscan} $sql $end");
	is($got, $expected, "$label: ORDER BY <-> LIMIT $n: index distances == seqscan");
	return;
}

sub index_check
{
	my ($node, $index, $heapallindexed, $label, %opt) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my $db = $opt{db} // 'postgres';
	my $method = $opt{method} // 'simhash';
	return if $method ne 'simhash';
	my $h = $heapallindexed ? 'true' : 'false';
	my ($rc, $out, $err) = $node->psql($db, "SELECT simhash_index_check('$index', $h)");
	is($rc, 0, "$label: simhash_index_check($index, $h) passes");
	diag($err) if $rc != 0;
	return;
}

# kill -9 of the postmaster and of every process it started, as a power cut
# would stop them: no backend finishes its statement, nothing is flushed.
# Returns the pids of the children killed, once they and the postmaster are
# gone, so that the node can start again (and recover). Reads /proc (Linux).
sub kill9_all
{
	my ($node) = @_;
	my $pidfile = $node->data_dir . '/postmaster.pid';
	open(my $fh, '<', $pidfile) or die "no $pidfile: $!";
	chomp(my $postmaster = <$fh>);
	close $fh;
	# Stopped, the postmaster forks nothing between the scan and the kill: a
	# worker it started meanwhile would survive and keep the shared memory.
	kill 'STOP', $postmaster;
	wait_for_state($postmaster, qr/^[TZ]$/);
	my @children = grep { ((proc_stat($_))[1] // 0) == $postmaster } map { m{/proc/(\d+)/} } glob '/proc/[0-9]*/stat';
	$node->kill9;
	kill 'KILL', @children;
	wait_for_state($_, qr/^Z?$/) for $postmaster, @children;
	# A postmaster not yet reaped by init would make the lock files look live.
	unlink $pidfile, $node->host . '/.s.PGSQL.' . $node->port . '.lock';
	return @children;
}

# (state, ppid) of a process; empty once it is gone. The command name in
# parentheses may hold spaces and parentheses itself: the last ')' ends it.
sub proc_stat
{
	my ($pid) = @_;
	open(my $f, '<', "/proc/$pid/stat") or return ();
	my $line = <$f> // '';
	close $f;
	return $line =~ /^\d+ \(.*\) (\S+) (\d+) / ? ($1, $2) : ();
}

sub wait_for_state
{
	my ($pid, $want) = @_;
	for (1 .. 600)
	{
		my ($state) = proc_stat($pid);
		return if ($state // '') =~ $want;
		select(undef, undef, undef, 0.1);
	}
	die "process $pid did not reach state $want";
}

1;
