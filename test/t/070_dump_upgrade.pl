# A database using simhash survives the two ways users move one: pg_dump
# and pg_restore into another database, and pg_upgrade into a new cluster
# (same binaries: what matters is that the binary-upgrade dump recreates the
# type, the access method and the indexes, and that the copied index files
# are read as they were written). After each, the index answers like a
# sequential scan at every k, passes its check with heapallindexed, keeps its
# reloptions, and the guard still rejects a near-duplicate.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Path qw(make_path);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
plan skip_all => 'pg_upgrade of the simhash index format' unless $method eq 'simhash';
my @ks = (0, 1, 3, 6);

my $old = PostgreSQL::Test::Cluster->new('old');
$old->init;
$old->start;
create_test_schema($old);
create_queries($old);
insert_rows($old, 'docs', 1, 20000);
create_simhash_index($old, $method, 'docs', 'docs_fp6', 6);
# Rows written after the build live in leaf tails and split pages, not only
# in the packed leaves of a bulk build; the deleted ones leave dead entries.
$old->safe_psql('postgres', q{
INSERT INTO docs (g, fp) SELECT g, test_fp(g) FROM generate_series(20001, 24000) g;
DELETE FROM docs WHERE id % 11 = 0;
});

$old->safe_psql('postgres', q{
CREATE TABLE legacy (id bigint PRIMARY KEY, fpi bigint);
INSERT INTO legacy SELECT id, fp::bigint FROM docs WHERE fp IS NOT NULL;
CREATE INDEX legacy_fpi ON legacy USING simhash ((fpi::simhash64)) WITH (max_distance = 4);

CREATE TABLE parts (id bigint, fp simhash64) PARTITION BY RANGE (id);
CREATE TABLE parts_low PARTITION OF parts FOR VALUES FROM (MINVALUE) TO (12000);
CREATE TABLE parts_high PARTITION OF parts FOR VALUES FROM (12000) TO (MAXVALUE);
INSERT INTO parts SELECT id, fp FROM docs;
CREATE INDEX parts_fp ON parts USING simhash (fp);

CREATE TABLE guarded (id int PRIMARY KEY, fp simhash64);
INSERT INTO guarded SELECT g, fp_of('guarded' || g) FROM generate_series(1, 500) g;
SELECT simhash_guard('guarded', 'fp', 3);

CREATE TABLE texts (id int PRIMARY KEY, body text,
                    fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED);
INSERT INTO texts (id, body)
  SELECT g, 'the quick brown fox ' || repeat('jumps over the lazy dog ', 1 + g % 3) || md5(g::text)
  FROM generate_series(1, 300) g;
CREATE INDEX texts_fp ON texts USING simhash (fp);

CREATE UNLOGGED TABLE scratch (id bigint, fp simhash64);
INSERT INTO scratch SELECT id, fp FROM docs WHERE id < 2000;
CREATE INDEX scratch_fp ON scratch USING simhash (fp);
});

# What each copy must reproduce: reloptions and layout, and every
# fingerprint of the generated column (simhash(text) must be immutable).
my $layout_sql = q{
SELECT c.relname, c.reloptions, i.max_distance, i.tables, i.blocks
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam, LATERAL simhash_index_info(c.oid) i
 WHERE a.amname = 'simhash' AND c.relkind = 'i' ORDER BY c.relname};
my $texts_sql = 'SELECT string_agg(fp::text, \',\' ORDER BY id) FROM texts';
my $layout = $old->safe_psql('postgres', $layout_sql);
like($layout, qr/^docs_fp6\|\{max_distance=6\}\|6\|/m, 'the max_distance 6 index is listed');
my $texts = $old->safe_psql('postgres', $texts_sql);

# The checks every copy passes; $db on $node.
sub check_copy
{
	my ($node, $db, $label) = @_;
	is($node->safe_psql($db, $layout_sql), $layout, "$label: same indexes, reloptions and layouts");
	is($node->safe_psql($db, $texts_sql), $texts, "$label: the generated fingerprints are unchanged");
	compare_with_seqscan($node, $node, 'docs', 'docs_fp6', $method, \@ks, "$label: docs", db => $db);
	compare_knn_with_seqscan($node, $node, 'docs', 'docs_fp6', $method, 10, "$label: docs", db => $db);
	compare_with_seqscan($node, $node, 'parts', 'parts_low_fp_idx', $method, [3], "$label: parts",
		db => $db, modes => ['bitmapscan']);
	my $legacy_sql = 'SELECT q.qid, count(l.id) FROM simhash_q q LEFT JOIN legacy l '
	  . 'ON l.fpi::simhash64 <@ simhash_ball(q.fp, 4) GROUP BY q.qid ORDER BY q.qid';
	is($node->safe_psql($db, "SET enable_seqscan = off; SET enable_bitmapscan = off; $legacy_sql"),
		$node->safe_psql($db, "SET enable_indexscan = off; SET enable_bitmapscan = off; $legacy_sql"),
		"$label: the expression index answers like a sequential scan");
	for my $index (qw(docs_fp6 legacy_fpi parts_low_fp_idx parts_high_fp_idx guarded_fp_idx texts_fp scratch_fp))
	{
		index_check($node, $index, 1, $label, db => $db);
	}
	my ($rc, $out, $err) =
	  $node->psql($db, 'INSERT INTO guarded SELECT 1000, fp FROM guarded WHERE id = 7');
	like($err, qr/near-duplicate of an existing row/, "$label: the guard rejects a copy of a row");
	return;
}

# pg_dump -Fc of the whole database, restored into a new one of the same
# cluster (a restore runs CREATE INDEX again, after the data).
my $dump = $old->basedir . '/simhash.dump';
command_ok(['pg_dump', '-Fc', '-f', $dump, '-d', $old->connstr('postgres')], 'pg_dump succeeds');
$old->safe_psql('postgres', 'CREATE DATABASE restored');
command_ok(['pg_restore', '--exit-on-error', '-d', $old->connstr('restored'), $dump],
	'pg_restore succeeds');
check_copy($old, 'restored', 'restored');
is($old->safe_psql('restored', 'SELECT count(*) FROM scratch'),
	$old->safe_psql('postgres', 'SELECT count(*) FROM scratch'),
	'restored: the unlogged table\'s rows are there');

# pg_upgrade copies the relation files as they are (an unlogged table's and
# its index's main forks too, after the old cluster's clean shutdown); the
# init forks are the new cluster's own, written by the restored schema's
# CREATE INDEX.
my $scratch_rows = $old->safe_psql('postgres', 'SELECT count(*) FROM scratch');
my $new = PostgreSQL::Test::Cluster->new('new');
$new->init;
my $bindir = $old->config_data('--bindir');
$old->stop;
# (pg_upgrade writes its scripts to the current directory.)
my $work = $old->basedir . '/upgrade';
make_path($work);
chdir $work or die "chdir $work: $!";
command_ok(
	[
		'pg_upgrade', '--no-sync', '-d', $old->data_dir, '-D', $new->data_dir, '-b', $bindir, '-B',
		$bindir, '-s', $new->host, '-p', $old->port, '-P', $new->port
	],
	'pg_upgrade succeeds');
$new->start;
check_copy($new, 'postgres', 'upgraded');
check_copy($new, 'restored', 'upgraded restored');
is($new->safe_psql('postgres', 'SELECT count(*) FROM scratch'), $scratch_rows,
	'upgraded: the unlogged table kept its rows, which its index was checked against');

# After a crash the unlogged index is reset to its init fork, then filled
# and read like any other.
$new->safe_psql('postgres', 'INSERT INTO scratch SELECT id, fp FROM docs WHERE id < 3000');
$new->stop('immediate');
$new->start;
is($new->safe_psql('postgres', 'SELECT count(*) FROM scratch'), '0',
	'upgraded: an unlogged table is empty after a crash');
$new->safe_psql('postgres', 'INSERT INTO scratch SELECT id, fp FROM docs WHERE id < 3000');
my $scratch_sql = 'SELECT q.qid, count(s.id) FROM simhash_q q LEFT JOIN scratch s '
  . 'ON s.fp <@ simhash_ball(q.fp, 3) GROUP BY q.qid ORDER BY q.qid';
is($new->safe_psql('postgres', "SET enable_seqscan = off; $scratch_sql"),
	$new->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $scratch_sql"),
	'upgraded: the reset unlogged index answers like a sequential scan');
index_check($new, 'scratch_fp', 1, 'upgraded, after the crash');

$new->stop;
done_testing();
