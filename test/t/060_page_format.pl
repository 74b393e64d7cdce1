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
	open(my $fh, '+<:raw', $file) or die "open $file: $!";
	seek($fh, 28, 0) or die;
	print $fh pack('L', $version);
	close($fh);
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

$node->stop;
done_testing();
