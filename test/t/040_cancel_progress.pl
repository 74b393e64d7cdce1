# Cancellation and progress: a CREATE INDEX cancelled by statement_timeout at
# several points of the build (heap scan, and the access method's own sorting
# and page writing), or from a second session while a spilled build writes its
# tables, stops within a second and leaves no index behind; a long
# query through the index, or a fingerprint of one very long word, is cancelled
# as promptly; and
# pg_stat_progress_create_index shows the build while it runs, seen from a
# second session.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
my $rows = $ENV{SIMHASH_CANCEL_ROWS} // 600000;

my $node = PostgreSQL::Test::Cluster->new('cancel');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_wal_size = 1GB
maintenance_work_mem = '256MB'
});
$node->start;
create_test_schema($node);
create_queries($node);

# cheap pseudo-random fingerprints, so the build dominates, not the load
$node->safe_psql('postgres', qq{
CREATE TABLE big (id bigint, fp simhash64);
INSERT INTO big SELECT g, ((hashint8(g)::bigint << 32) | (hashint8(-g)::bigint & 4294967295))::simhash64
  FROM generate_series(1, $rows) g;
VACUUM ANALYZE big;
});

my $with = $method eq 'simhash' ? 'WITH (max_distance = 3)' : '';
my $create = "CREATE INDEX big_idx ON big USING $method (fp) $with";

# The uncancelled build time sets where the timeouts land: the faster of two,
# as a build slowed by a busy machine would set them too late.
my $build_ms;
for (1 .. 2)
{
	my $t0 = time;
	$node->safe_psql('postgres', $create);
	my $ms = (time - $t0) * 1000;
	$build_ms = $ms if !defined $build_ms || $ms < $build_ms;
	$node->safe_psql('postgres', 'DROP INDEX big_idx');
}
note(sprintf('full build of %d rows: %.0f ms', $rows, $build_ms));

sub no_index_left
{
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_class WHERE relname = 'big_idx'") eq '0';
}

my $cancelled = 0;
for my $fraction (0.2, 0.5, 0.8, 0.95)
{
	my $timeout = int($build_ms * $fraction) || 1;
	my $start = time;
	my ($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = $timeout; $create");
	my $elapsed = (time - $start) * 1000;
	if ($rc == 0)
	{
		# the build beat the timeout on this run: nothing to assert but the result
		note("build finished within $timeout ms");
		$node->safe_psql('postgres', 'DROP INDEX big_idx');
		next;
	}
	like($err, qr/canceling statement due to statement timeout/,
		"build cancelled at $timeout ms ($fraction of the build)");
	cmp_ok($elapsed, '<', $timeout + 1000, "cancelled build returned within a second (took "
		  . int($elapsed) . " ms)");
	ok(no_index_left(), "cancelled build at $fraction left no index");
	$cancelled++;
}
# (A run where every build beats its timeout would otherwise prove nothing.)
cmp_ok($cancelled, '>=', 2, "$cancelled of 4 builds were cancelled by their timeout");

# the table is intact and a full build still works and checks
$node->safe_psql('postgres', $create);
index_check($node, 'big_idx', 1, 'build after cancellations', method => $method);

# A query that runs long through the index (one probe per outer row, or a
# sweep at a radius above max_distance) is cancelled as promptly.
for my $sql (
	'SELECT count(*) FROM big a JOIN big b ON simhash_within(b.fp, a.fp, 3)',
	'SELECT count(*) FROM big a JOIN big b ON b.fp <@ simhash_ball(a.fp, 12) WHERE a.id < 2000')
{
	my $start = time;
	my ($rc, $out, $err) = $node->psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SET statement_timeout = 300; $sql");
	my $elapsed = (time - $start) * 1000;
	like($err, qr/canceling statement due to statement timeout/, "query cancelled: $sql");
	cmp_ok($elapsed, '<', 1300, "cancelled query returned within a second (took " . int($elapsed) . " ms)");
}

# A build cancelled while it writes its tables from runs spilled to disk
# (1 MB of maintenance_work_mem, 20 tables), from a second session that
# watches the progress view: the view shows the access method's own phase and
# its entries written out of rows x tables, and the build leaves the view and
# the catalog within a second.
if ($method eq 'simhash')
{
	$node->safe_psql('postgres', q{
	CREATE FUNCTION watch_writes(tbl regclass, give_up interval) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
	  r record;
	  seen bool := false;
	  total bigint;
	  steps bigint[] := '{}';
	  cancelled_at timestamptz;
	  deadline timestamptz := clock_timestamp() + give_up;
	BEGIN
	  WHILE clock_timestamp() < deadline LOOP
	    PERFORM pg_stat_clear_snapshot();
	    SELECT * INTO r FROM pg_stat_progress_create_index p WHERE p.relid = tbl;
	    IF NOT FOUND THEN
	      EXIT WHEN seen;
	    ELSE
	      seen := true;
	      IF r.phase = 'building index: writing tables' THEN
	        total := r.tuples_total;
	        IF r.tuples_done > 0 AND r.tuples_done < r.tuples_total AND NOT r.tuples_done = ANY (steps) THEN
	          steps := steps || r.tuples_done;
	        END IF;
	        -- once two tables are written, so that the cancel lands among them
	        IF cancelled_at IS NULL AND cardinality(steps) >= 2 THEN
	          cancelled_at := clock_timestamp();
	          PERFORM pg_cancel_backend(r.pid);
	        END IF;
	      END IF;
	    END IF;
	    PERFORM pg_sleep(0.002);
	  END LOOP;
	  RETURN format('%s|%s|%s', coalesce(total, -1), cardinality(steps),
	                coalesce((extract(epoch FROM clock_timestamp() - cancelled_at) * 1000)::int, -1));
	END $$});
	my $temp_files = "SELECT temp_files FROM pg_stat_database WHERE datname = current_database()";
	my $temp_before = $node->safe_psql('postgres', $temp_files);
	my $writer = $node->background_psql('postgres', on_error_stop => 0);
	$writer->query_until(qr/go/, "SET maintenance_work_mem = '1MB';\n\\echo go\n"
		  . "CREATE INDEX big_idx20 ON big USING simhash (fp) WITH (max_distance = 3, blocks = 6);\n");
	# (The 20-table build takes several times the 4-table one; a minute more
	# covers the slowest machine.)
	my $give_up = int(60 + 20 * $build_ms / 1000);
	my ($total, $steps, $ms) = split /\|/,
	  $node->safe_psql('postgres', "SELECT watch_writes('big', '$give_up s')");
	$writer->quit;
	like($writer->{stderr}, qr/canceling statement due to user request/, 'the spilled build reported its cancellation');
	ok($node->poll_query_until('postgres', "SELECT ($temp_files) > $temp_before"), 'the build had spilled to temporary files');
	is($total, $rows * 20, 'the write phase counts rows x tables entries');
	cmp_ok($steps, '>=', 2, 'entries written advanced table by table');
	cmp_ok($ms, '>=', 0, 'the spilled build was cancelled while writing its tables');
	cmp_ok($ms, '<', 1000, "and left the progress view within a second ($ms ms)");
	is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'big_idx20'"), '0',
		'the build cancelled while writing left no index');
}

# A fingerprint of one very long word, which makes hundreds of millions of
# character n-grams, is cancelled as promptly.  The document is stored first,
# so that the timeout lands in simhash() and not in repeat(), and the timeout
# is set from an uncancelled run to land after the text is read (about half
# the run), among the n-grams.  (The unit tests check that long shingles and
# case folding poll too.)
$node->safe_psql('postgres', q{
	CREATE TABLE big_doc (body text);
	ALTER TABLE big_doc ALTER body SET STORAGE EXTERNAL;
	INSERT INTO big_doc VALUES (repeat('abcdefghij', 60000000))});
{
	my $sql = q{SELECT simhash(body, tokens => 'chars') FROM big_doc};
	my $run_ms;
	for my $run (1 .. 3)    # the first run reads the document from disk
	{
		my $start = time;
		$node->safe_psql('postgres', $sql);
		my $ms = (time - $start) * 1000;
		$run_ms = $ms if $run > 1 && (!defined $run_ms || $ms < $run_ms);
	}
	# From the faster warm run, and not at its very end: on a shared machine
	# one run took three quarters of the one before it, and a run that
	# finishes before its timeout proves nothing.
	# Up to three tries: reading the document does not poll for interrupts
	# (PostgreSQL's detoasting), and a run slowed by a busy machine can still
	# be reading it when the timeout fires (CI once returned 1.5 s late). A
	# fingerprint loop that stopped polling would be late in every try.
	my $timeout = int($run_ms * 0.65);
	my @took;
	for my $try (1 .. 3)
	{
		my $start = time;
		my ($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = $timeout; $sql");
		my $elapsed = (time - $start) * 1000;
		like($err, qr/canceling statement due to statement timeout/,
			"fingerprint of one long word cancelled at $timeout ms (try $try)");
		push @took, int($elapsed);
		last if $elapsed < $timeout + 1000;
	}
	cmp_ok($took[-1], '<', $timeout + 1000,
		"cancelled fingerprint returned within a second (took " . join(', ', @took) . " ms)");
}
$node->safe_psql('postgres', 'DROP TABLE big_doc');

# Progress.  An expression that sleeps per row keeps the heap scan of a small
# table going for seconds; a second session polls the progress view, records
# the phases and counters it sees, then cancels the build.
$node->safe_psql('postgres', q{
CREATE FUNCTION slow_fp(g bigint) RETURNS simhash64 LANGUAGE sql IMMUTABLE
  AS $$ SELECT test_fp(g) FROM pg_sleep(0.0005) $$;
CREATE TABLE slow (id bigint);
INSERT INTO slow SELECT generate_series(1, 4000);
VACUUM ANALYZE slow;
-- Before the heap scan reads its first page, core reports blocks_done =
-- blocks_total; only values strictly inside count as progress.
CREATE FUNCTION watch_build(tbl regclass, cancel_at_blocks bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r record;
  phases text[] := '{}';
  seen_command text;
  steps bigint[] := '{}';
  total_blocks bigint := 0;
  cancelled_at timestamptz;
BEGIN
  FOR i IN 1..12000 LOOP
    PERFORM pg_stat_clear_snapshot();
    SELECT * INTO r FROM pg_stat_progress_create_index p WHERE p.relid = tbl;
    IF NOT FOUND THEN
      EXIT WHEN cardinality(phases) > 0;
    ELSE
      seen_command := r.command;
      IF NOT r.phase = ANY (phases) THEN phases := phases || r.phase; END IF;
      total_blocks := greatest(total_blocks, r.blocks_total);
      IF r.blocks_done > 0 AND r.blocks_done < r.blocks_total AND NOT r.blocks_done = ANY (steps) THEN
        steps := steps || r.blocks_done;
      END IF;
      IF cancelled_at IS NULL AND r.blocks_done >= cancel_at_blocks AND r.blocks_done < r.blocks_total THEN
        cancelled_at := clock_timestamp();
        PERFORM pg_cancel_backend(r.pid);
      END IF;
    END IF;
    PERFORM pg_sleep(0.005);
  END LOOP;
  RETURN format('%s|%s|%s/%s|%s', seen_command, array_to_string(phases, ';'),
                cardinality(steps), total_blocks,
                coalesce((extract(epoch FROM clock_timestamp() - cancelled_at) * 1000)::int, -1));
END $$;
});

my $builder = $node->background_psql('postgres', on_error_stop => 0);
$builder->query_until(qr/go/, "\\echo go\nCREATE INDEX slow_idx ON slow USING $method ((slow_fp(id))) $with;\n");
my $blocks = $node->safe_psql('postgres', "SELECT relpages FROM pg_class WHERE relname = 'slow'");
my $seen = $node->safe_psql('postgres', "SELECT watch_build('slow', $blocks / 2)");
note("progress seen: $seen");
my ($command, $phases, $progress, $cancel_ms) = split /\|/, $seen;
is($command, 'CREATE INDEX', 'progress view shows the CREATE INDEX');
like($phases, qr/building index: scanning table/, 'the heap scan sub-phase is reported');
my ($steps, $total) = split m{/}, $progress;
is($total, $blocks, 'blocks_total is the table size');
cmp_ok($steps, '>=', 2, 'blocks_done advanced through the table while the build ran');
cmp_ok($cancel_ms, '>=', 0, 'the build was cancelled from the second session');
cmp_ok($cancel_ms, '<', 1000, "and left the progress view within a second ($cancel_ms ms)");
$builder->quit;
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'slow_idx'"), '0',
	'cancelled build left no index');

# a complete build reports the access method's own phases after the scan
$builder = $node->background_psql('postgres', on_error_stop => 0);
$builder->query_until(qr/go/, "\\echo go\nCREATE INDEX slow_idx ON slow USING $method ((slow_fp(id))) $with;\n");
$seen = $node->safe_psql('postgres', "SELECT watch_build('slow', $blocks)");
note("progress of a complete build: $seen");
$builder->quit;
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'slow_idx'"), '1',
	'uncancelled build completed');
index_check($node, 'slow_idx', 1, 'expression index', method => $method);

$node->stop;
done_testing();
