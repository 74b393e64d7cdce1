# Index-only scans with many matches under a small buffer pool: a scan that
# matches rows in more leaves than shared_buffers holds (a radius far above
# max_distance, or one fingerprint repeated many times) must still answer,
# not fail with "no unpinned buffers available", and must equal a seqscan.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $method = index_method();

my $node = PostgreSQL::Test::Cluster->new('pins');
$node->init;
# 128 buffers of 8 kB: far fewer than the leaves of one table below
$node->append_conf('postgresql.conf', "shared_buffers = '1MB'\nmax_wal_size = 1GB");
$node->start;
create_test_schema($node);
$node->safe_psql('postgres', q{
CREATE TABLE wide (id bigint, fp simhash64);
INSERT INTO wide SELECT g, CASE WHEN g % 4 = 0 THEN fp_of('same')
                                ELSE ((hashint8(g)::bigint << 32) | (hashint8(-g)::bigint & 4294967295))::simhash64 END
  FROM generate_series(1, 300000) g;
VACUUM ANALYZE wide;
});
create_simhash_index($node, $method, 'wide', 'wide_idx', 3);
$node->safe_psql('postgres', 'VACUUM wide');

my $ios = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = on;';
my $seq = 'SET enable_seqscan = on; SET enable_bitmapscan = off; SET enable_indexscan = off;';
for my $case (["simhash_ball('0123456789abcdef', 64)", 'every row (radius 64)'],
	["simhash_ball(fp_of('same'), 0)", '75,000 copies of one fingerprint'])
{
	my ($ball, $label) = @$case;
	my $sql = "SELECT count(*) FROM wide WHERE fp <@ $ball";
	like($node->safe_psql('postgres', "$ios EXPLAIN (COSTS OFF) $sql"), qr/Index Only Scan using wide_idx/,
		"$label: index-only scan planned") if $method eq 'simhash';
	my $expected = $node->safe_psql('postgres', "$seq $sql");
	my ($rc, $got, $err) = $node->psql('postgres', "$ios $sql");
	$got .= "\nERROR: $err" if $rc != 0;
	is($got, $expected, "$label: index-only scan == seqscan with 128 buffers");
}
index_check($node, 'wide_idx', 1, 'after the scans', method => $method);

$node->stop;
done_testing();
