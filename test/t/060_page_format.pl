# An index written by an older release (an older version number in its
# metapage) is refused with SQLSTATE 55000 and a REINDEX hint, not read with
# the wrong page format; a version this library does not know is corruption
# (XX002). REINDEX then gives answers equal to a sequential scan.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();
plan skip_all => 'the metapage is the simhash index\'s own' unless $method eq 'simhash';

my $node = PostgreSQL::Test::Cluster->new('format');
$node->init;
$node->start;
create_test_schema($node);
insert_rows($node, 'docs', 1, 20000);
create_simhash_index($node, $method, 'docs', 'docs_fp', 3);
# REINDEX gives the index a new file.
sub index_file
{
	return $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('docs_fp')");
}
my $file = index_file();

# The version is the second uint32 of the metapage's contents, after the
# 24-byte page header and the magic number; the test clusters have no data
# checksums, so the page can be patched in place.
sub set_version
{
	my ($version) = @_;
	$node->stop;
	patch_block($file, 0, 28, pack('L', $version));
	$node->start;
	return;
}

# (After a checkpoint: the build's metapage may still be only in shared buffers.)
sub read_version
{
	my ($path) = @_;
	$node->safe_psql('postgres', 'CHECKPOINT');
	open(my $fh, '<:raw', $path) or die "open $path: $!";
	seek($fh, 28, 0) or die;
	read($fh, my $bytes, 4) == 4 or die;
	close($fh);
	return unpack('L', $bytes);
}

# The opaque area is the page's last 40 bytes: flags, level, table, has_high
# (uint16 each), the right-link (uint32), then the low and high keys (14 bytes
# each). Returns the first block from 1 of index file $path whose opaque area
# satisfies $want (called with flags, level, table, has_high and the 40
# bytes), and those bytes; () if none.
sub find_block
{
	my ($path, $want) = @_;
	open(my $fh, '<:raw', $path) or die "open $path: $!";
	for (my $blk = 1;; $blk++)
	{
		seek($fh, $blk * 8192 + 8152, 0) or die;
		last if read($fh, my $op, 40) != 40;
		next unless $want->(unpack('SSSS', $op), $op);
		close($fh);
		return ($blk, $op);
	}
	close($fh);
	return ();
}

# Writes $bytes at byte $offset of block $blk of index file $path.
sub patch_block
{
	my ($path, $blk, $offset, $bytes) = @_;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	seek($fh, $blk * 8192 + $offset, 0) or die;
	print $fh $bytes;
	close($fh);
	return;
}

my $version = read_version($file);
cmp_ok($version, '>=', 4, "the metapage holds this library's version ($version)");
my $probe = q{SET enable_seqscan = off; SELECT count(*) FROM docs WHERE fp <@ simhash_ball(fp_of('r42'), 3)};

set_version($version - 1);
my ($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$probe");
isnt($rc, 0, 'an older page format is not read');
like($err, qr/55000/, 'SQLSTATE 55000 (object not in prerequisite state)');
like($err, qr/simhash index "docs_fp" has an older page format \(version @{[$version - 1]}, this library reads $version\)/,
	'the message names the index and both versions');
like($err, qr/HINT:\s+REINDEX INDEX docs_fp;/, 'the hint gives the REINDEX to run');

set_version($version + 1);
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$probe");
isnt($rc, 0, 'an unknown page format is not read');
like($err, qr/XX002/, 'SQLSTATE XX002 (index corrupted)');
like($err, qr/index "docs_fp" has a corrupt simhash metapage/, 'the message names the index');

$node->safe_psql('postgres', 'REINDEX INDEX docs_fp');
is(read_version(index_file()), $version, 'REINDEX writes the current version');
my $expected = $node->safe_psql('postgres',
	q{SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM docs WHERE fp <@ simhash_ball(fp_of('r42'), 3)});
is($node->safe_psql('postgres', $probe), $expected, 'after REINDEX the index answers like a sequential scan');
index_check($node, 'docs_fp', 1, 'after REINDEX');

# A page added by a split whose splitter failed before its WAL record stays
# all zeros: VACUUM (both passes), the check and the info skip it. (Builds
# with assertions aborted in VACUUM's walk on such a page; without its
# PageIsNew test, VACUUM reports it as the foreign page below.)
$file = index_file();
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
open(my $zfh, '>>:raw', $file) or die "open $file: $!";
print $zfh "\0" x 8192;
close($zfh);
$node->start;
$node->safe_psql('postgres', q{DELETE FROM docs WHERE g % 5 = 0});
$node->safe_psql('postgres', 'VACUUM docs');
is($node->safe_psql('postgres', $probe),
	$node->safe_psql('postgres',
		q{SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM docs WHERE fp <@ simhash_ball(fp_of('r42'), 3)}),
	'with an all-zero page: the index answers like a sequential scan after VACUUM');
index_check($node, 'docs_fp', 1, 'with an all-zero page');
is($node->safe_psql('postgres', q{SELECT dead_entries FROM simhash_index_info('docs_fp')}), '0',
	'with an all-zero page: VACUUM removed the dead entries');

# A page that is not all zeros and has no simhash special space (here a valid
# empty page header, as a heap page has) is corruption for VACUUM's walk over
# every block, not a page whose bytes it reads as a leaf's.
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
open(my $ffh, '>>:raw', $file) or die "open $file: $!";
my $foreign_blk = (-s $file) / 8192;
print $ffh pack('x8 x2 x2 S S S S x4', 24, 8192, 8192, 8192 | 4) . ("\0" x (8192 - 24));
close($ffh);
$node->start;
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nVACUUM docs");
like($err, qr/XX002/, 'a foreign page: VACUUM raises index_corrupted');
like($err, qr/simhash index "docs_fp" is corrupt: block $foreign_blk: not a simhash index page/,
	'the message names the index and the block');
$node->safe_psql('postgres', 'REINDEX INDEX docs_fp');
$file = index_file();

# Right-links that do not lead to higher keys are corruption (XX002) for a
# scan, the info and the check, not a walk that never ends: a leaf of table 0
# is patched so that its high key is its low key and its right-link is
# itself (scans and the info looped until cancelled).
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
my ($patched, $op) = find_block($file, sub { my ($flags, undef, $table, $has_high) = @_; $flags == 1 && $table == 0 && $has_high == 1 });
patch_block($file, $patched, 8160, pack('L', $patched) . substr($op, 12, 14) . substr($op, 12, 14)) if defined $patched;
$node->start;
ok(defined $patched, 'a leaf of table 0 with a right sibling was patched');
foreach my $case (
	[ 'a sweep', q{SET enable_seqscan = off; SELECT count(*) FROM docs WHERE fp <@ simhash_ball(fp_of('r42'), 12)} ],
	[ 'simhash_index_info', q{SELECT entries FROM simhash_index_info('docs_fp')} ],
	[ 'simhash_index_check', q{SELECT simhash_index_check('docs_fp')} ])
{
	my ($label, $sql) = @$case;
	my ($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = '30s'; $sql");
	like($err, qr/index "docs_fp" is corrupt/, "right-link loop: $label raises index_corrupted");
}
$node->safe_psql('postgres', 'REINDEX INDEX docs_fp');
index_check($node, 'docs_fp', 1, 'after REINDEX of the patched index');

# heapallindexed only checks rows a fresh snapshot sees. A row deleted before
# the build was never indexed; raising vacuum_defer_cleanup_age moves the
# cleanup horizon back, and the row counts as recently dead again (the
# check reported it missing).
$node->safe_psql('postgres', q{
CREATE TABLE hz (g int, fp simhash64);
INSERT INTO hz SELECT g, fp_of('h' || g) FROM generate_series(1, 100) g;
DELETE FROM hz WHERE g = 50});
$node->safe_psql('postgres', 'SELECT txid_current()') for 1 .. 5;
$node->safe_psql('postgres', 'CREATE INDEX hz_fp ON hz USING simhash (fp)');
index_check($node, 'hz_fp', 1, 'a row deleted before the build');
$node->safe_psql('postgres', 'ALTER SYSTEM SET vacuum_defer_cleanup_age = 100');
$node->reload;
index_check($node, 'hz_fp', 1, 'that row, once the cleanup horizon moved back');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET vacuum_defer_cleanup_age');
$node->reload;

# A downlink that points back to its own page is corruption (XX002) for an
# INSERT's descent too, not a descent that never ends: the insert went round
# at full CPU, deaf to statement_timeout, cancel and terminate. Every downlink
# of the root of a one-table index of height 2 is patched to the root itself.
# Internal entries follow the 24-byte page header: a 14-byte low key, the
# child's block number (uint32), then the summary of the child's keys (two
# uint64); pd_lower (uint16 at byte 12) ends them.
$node->safe_psql('postgres', q{
CREATE TABLE dl (g int, fp simhash64);
INSERT INTO dl SELECT g, fp_of('d' || g) FROM generate_series(1, 5000) g;
CREATE INDEX dl_fp ON dl USING simhash (fp) WITH (max_distance = 0)});
my $dl_file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('dl_fp')");
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
my ($root) = find_block($dl_file, sub { my ($flags, $level) = @_; $flags == 2 && $level == 1 });
if (defined $root)
{
	my $lower = unpack('S', substr(slurp_file($dl_file), $root * 8192 + 12, 2));
	patch_block($dl_file, $root, $_ + 14, pack('L', $root)) for grep { ($_ - 24) % 34 == 0 } 24 .. $lower - 1;
}
$node->start;
ok(defined $root, 'the root of a height-2 index had its downlinks patched');
my $timed_out = 0;
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nINSERT INTO dl VALUES (0, fp_of('d0'))",
	timeout => 60, timed_out => \$timed_out);
ok(!$timed_out, 'a downlink to its own page: the INSERT ends');
like($err, qr/XX002/, 'a downlink to its own page: the INSERT raises index_corrupted');
like($err, qr/simhash index "dl_fp" is corrupt: table 0, block $root is not the page its parent points to/,
	'the message names the index and the block');

# A damaged page reached by a scan is reported (XX002), not read past: the
# first leaf of table 0 zeroed (what zero_damaged_pages leaves), its packed
# entry count (uint16 at byte 24) set to 65535, or its packed length (uint16
# at byte 26) to 7400. Each crashed the backend (SIGSEGV) before.
$node->safe_psql('postgres', 'REINDEX INDEX dl_fp');
$dl_file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('dl_fp')");
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
# (The leftmost leaf: its low key is all zeros.)
my ($leaf_blk) = find_block($dl_file,
	sub { my ($flags, undef, $table, undef, $op) = @_; $flags == 1 && $table == 0 && substr($op, 12, 14) eq ("\0" x 14) });
die 'no leftmost leaf' unless defined $leaf_blk;
my $leaf_page = substr(slurp_file($dl_file), $leaf_blk * 8192, 8192);
foreach my $case ([ 'zeroed', 0, "\0" x 8192 ], [ 'packed count 65535', 24, pack('S', 65535) ],
	[ 'packed length 7400', 26, pack('S', 7400) ])
{
	my ($label, $offset, $bytes) = @$case;
	patch_block($dl_file, $leaf_blk, 0, $leaf_page);
	patch_block($dl_file, $leaf_blk, $offset, $bytes);
	$node->start;
	($rc, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSET enable_seqscan = off; SELECT count(*) FROM dl WHERE fp <@ simhash_ball('0000000000000000', 40)");
	like($err, qr/XX002/, "a leaf $label: the scan raises index_corrupted");
	like($err, qr/simhash index "dl_fp" is corrupt: block $leaf_blk: /, "a leaf $label: the message names the block");
	$node->stop;
	unlike(slurp_file($node->logfile), qr/terminated by signal/, "a leaf $label: no backend crashed");
}
patch_block($dl_file, $leaf_blk, 0, $leaf_page);
$node->start;
index_check($node, 'dl_fp', 1, 'the leaf restored');

# A downlink whose summary rules out keys its child holds is corruption the
# check reports: scans trust the summary to skip the child unread. The root's
# first downlink gets the summary of no key (AND all ones, OR zero).
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
($root) = find_block($dl_file, sub { my ($flags, $level) = @_; $flags == 2 && $level == 1 });
die 'no root' unless defined $root;
my $root_page = substr(slurp_file($dl_file), $root * 8192, 8192);
my $first_child = unpack('L', substr($root_page, 24 + 14, 4));
patch_block($dl_file, $root, 24 + 18, pack('Q', ~0) . pack('Q', 0));
$node->start;
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT simhash_index_check('dl_fp')");
like($err, qr/XX002/, 'a downlink summary that rules out its child\'s keys: the check raises index_corrupted');
like($err, qr/simhash index "dl_fp" is corrupt: table 0, block $first_child: leaf keys outside the parent's summary/,
	'the message names the child and what its keys break');
$node->stop;
patch_block($dl_file, $root, 0, $root_page);
$node->start;
index_check($node, 'dl_fp', 1, 'the root restored');

# The same one level up: an index of height 3 (one table of 200,000 rows)
# whose root's first downlink, to an internal page, rules out every key.
$node->safe_psql('postgres', q{
CREATE TABLE tall (g int, fp simhash64);
INSERT INTO tall SELECT g, hashint8extended(g, 7)::simhash64 FROM generate_series(1, 200000) g;
CREATE INDEX tall_fp ON tall USING simhash (fp) WITH (max_distance = 0)});
is($node->safe_psql('postgres', q{SELECT height FROM simhash_index_info('tall_fp')}), '3', 'an index of height 3');
my $tall_file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('tall_fp')");
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
my ($tall_root) = find_block($tall_file, sub { my ($flags, $level) = @_; $flags == 2 && $level == 2 });
die 'no root of level 2' unless defined $tall_root;
my $level1 = unpack('L', substr(slurp_file($tall_file), $tall_root * 8192 + 24 + 14, 4));
patch_block($tall_file, $tall_root, 24 + 18, pack('Q', ~0) . pack('Q', 0));
$node->start;
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT simhash_index_check('tall_fp')");
like($err, qr/simhash index "tall_fp" is corrupt: table 0, block $level1: internal summary outside the parent's/,
	'a downlink summary that rules out its internal child\'s: the check names that page');
$node->safe_psql('postgres', 'DROP TABLE tall');

# An entry whose key is not its row's fingerprint is corruption that scans
# cannot see (they never recheck), so heapallindexed looks for it: an index
# built empty gets two rows, which land in its root leaf's tail of plain
# 14-byte entries (key, block, offset) up to pd_lower; a copy of the last one
# with its key's lowest bit flipped is appended. The check passed it before.
$node->safe_psql('postgres', q{
CREATE TABLE tl (g int, fp simhash64);
CREATE INDEX tl_fp ON tl USING simhash (fp) WITH (max_distance = 0);
INSERT INTO tl VALUES (1, 'aaaabbbbccccdddd'), (2, '1111222233334444')});
index_check($node, 'tl_fp', 1, 'two rows in the tail');
my $tl_file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('tl_fp')");
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
my ($tail_blk) = find_block($tl_file, sub { my ($flags, undef, $table) = @_; $flags == 1 && $table == 0 });
die 'no leaf' unless defined $tail_blk;
my $tail_page = substr(slurp_file($tl_file), $tail_blk * 8192, 8192);
my $lower = unpack('S', substr($tail_page, 12, 2));
my $last = substr($tail_page, $lower - 14, 14);
# The leaf's key summary (the AND and OR of its keys) still holds only when
# the two keys differ in the flipped bit; else the check's page pass would
# report the summary before heapallindexed reads the entry.
my $first = substr($tail_page, $lower - 28, 14);
is((ord(substr($first, 0, 1)) ^ ord(substr($last, 0, 1))) & 1, 1, 'the two keys differ in their lowest bit');
my $wrong = chr(ord(substr($last, 0, 1)) ^ 1) . substr($last, 1);
patch_block($tl_file, $tail_blk, $lower, $wrong);
patch_block($tl_file, $tail_blk, 12, pack('S', $lower + 14));
$node->start;
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT simhash_index_check('tl_fp', true)");
like($err, qr/XX002/, 'an entry with another key than its row: heapallindexed raises index_corrupted');
like($err, qr/simhash index "tl_fp" is corrupt: table 0, block $tail_blk holds an entry for heap row \(0,\d+\) that is not that row's fingerprint/,
	'the message names the block and the row');
# An entry that points to no row the check's snapshot sees is not corruption:
# a deleted row's entries stay until VACUUM.
$node->safe_psql('postgres', 'DELETE FROM tl');
index_check($node, 'tl_fp', 1, 'that entry, once its row is deleted');
$node->safe_psql('postgres', 'VACUUM tl');
index_check($node, 'tl_fp', 1, 'after VACUUM');

# (An INSERT that never ends ignores a fast shutdown too.)
$node->stop($timed_out ? 'immediate' : 'fast');
done_testing();
