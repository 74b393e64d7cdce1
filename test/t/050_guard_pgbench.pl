# The guard under load: 8 clients insert near-duplicate families for
# SIMHASH_PGBENCH_SECONDS seconds (default 60) under READ COMMITTED,
# REPEATABLE READ and SERIALIZABLE, single rows and pairs; afterwards no two
# rows may be within k bits. The clients catch the errors the guard is meant
# to raise (23P01, 40001, and 40P01 between two-row transactions).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SimhashTest;

my $seconds = $ENV{SIMHASH_PGBENCH_SECONDS} // 60;
my $k = 3;

my $node = PostgreSQL::Test::Cluster->new('guard_pgbench');
$node->init;
$node->start;

$node->safe_psql('postgres', qq{
CREATE EXTENSION simhash;
CREATE TABLE docs (id bigserial PRIMARY KEY, family int, fp simhash64);
SELECT simhash_guard('docs', 'fp', $k);
CREATE SEQUENCE inserted; CREATE SEQUENCE refused; CREATE SEQUENCE retried; CREATE SEQUENCE deadlocked;
-- A family member: the family's base with up to two bits flipped, so members
-- are within 4 bits of each other, often within $k.
CREATE FUNCTION member(fam int, b1 int, b2 int) RETURNS simhash64 LANGUAGE sql IMMUTABLE
  RETURN ((('x' || md5(fam::text))::bit(64)::bigint # (1::bigint << b1) # (1::bigint << b2)))::simhash64;
CREATE FUNCTION try_insert(fam int, fps simhash64[]) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
  INSERT INTO docs (family, fp) SELECT fam, f FROM unnest(fps) f;
  PERFORM nextval('inserted');
EXCEPTION
  WHEN exclusion_violation THEN PERFORM nextval('refused');
  WHEN serialization_failure THEN PERFORM nextval('retried');
  WHEN deadlock_detected THEN PERFORM nextval('deadlocked');
END \$\$;
});

my $one = q{
\set fam random(1, 3000)
\set b1 random(0, 63)
\set b2 random(0, 63)
BEGIN ISOLATION LEVEL LEVEL;
SELECT try_insert(:fam, ARRAY[member(:fam, :b1, :b2)]);
COMMIT;
};
my $two = q{
\set fam random(1, 3000)
\set fam2 random(1, 3000)
\set b1 random(0, 63)
\set b2 random(0, 63)
BEGIN ISOLATION LEVEL LEVEL;
SELECT try_insert(:fam, ARRAY[member(:fam, :b1, :b2), member(:fam2, :b2, :b1)]);
COMMIT;
};
my %files;
for my $level ('READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE')
{
	(my $tag = lc $level) =~ s/ /_/g;
	($files{"guard_one_$tag\@3"} = $one) =~ s/LEVEL;/$level;/;
	($files{"guard_two_$tag\@1"} = $two) =~ s/LEVEL;/$level;/;
}

$node->pgbench(
	"--no-vacuum --client=8 --jobs=2 --time=$seconds",
	0,
	[qr{processed: [1-9]}],
	[qr{^$}],
	'8 clients insert near-duplicate families',
	\%files);

my ($inserted, $refused, $retried, $deadlocked) = split /\|/, $node->safe_psql('postgres',
	q{SELECT last_value, (SELECT last_value FROM refused), (SELECT last_value FROM retried),
	         (SELECT last_value FROM deadlocked) FROM inserted});
note "inserted $inserted, refused $refused, serialization failures $retried, deadlocks $deadlocked";
cmp_ok($inserted, '>', 100, 'many rows were inserted');
cmp_ok($refused, '>', 100, 'many near-duplicates were refused');

# All pairs within k: a pair within 3 bits agrees on one of the four 16-bit
# blocks, so a union of four block equi-joins (hash joins) finds every one.
my $pairs = join(' UNION ', map {
	"SELECT a.id, b.id FROM docs a JOIN docs b ON a.id < b.id"
	  . " AND (a.fp::bigint >> $_) & 65535 = (b.fp::bigint >> $_) & 65535"
	  . " AND a.fp <-> b.fp <= $k" } (0, 16, 32, 48));
$pairs = "SELECT count(*) FROM ($pairs) p";
is($node->safe_psql('postgres', qq{
	$pairs}),
	'0', 'no two rows are within k bits');
# The check can fail: it finds the pair an unguarded insert makes.
$node->safe_psql('postgres', q{SELECT simhash_unguard('docs', 'fp'); INSERT INTO docs (family, fp) SELECT family, fp FROM docs LIMIT 1});
isnt($node->safe_psql('postgres', qq{
	$pairs}),
	'0', 'the self-join finds a pair once one is inserted unguarded');

# (The index the guard created outlives simhash_unguard.)
index_check($node, 'docs_fp_idx', 1, 'after the load');
$node->stop;
done_testing();
