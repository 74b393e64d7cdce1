// Pigeonhole block layouts (Manku, Jain & Das Sarma, WWW 2007), the one
// splitter behind the index's tables, the guard's lock buckets and the
// all-pairs search of deduplication.
//
// The 64 bits are split into B contiguous blocks, block 0 the most
// significant; widths differ by at most one bit, the last 64 mod B blocks (the
// least significant) being the wider ones. Two fingerprints within k bits
// differ in at most k blocks, so they agree exactly on at least B - k.
//
// A layout for radius K over B >= K blocks has C(B, K) tables. Each table is
// an order of the B blocks, and its key is the fingerprint with the blocks
// moved into that order: a bijection on bits, so distances are kept and every
// key holds the whole fingerprint.
//   - B = K + 1: table t is the rotation starting at block t, so for k < K
//     the equal blocks, read as a cycle, give longer equal prefixes;
//   - otherwise table t is the t-th set of B - K blocks (lexicographic), in
//     block order, then the other blocks in block order (B = K: one table
//     with an empty prefix, i.e. every pair is a candidate).
// Any pair within k <= K has, in some table, its first guaranteed_blocks(K,
// B, k) blocks equal.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace simhash {

constexpr int kMaxBlocks = 64;

struct BlockSplit {
    int blocks;
    std::uint8_t shift[kMaxBlocks];  // of each block's least significant bit
    std::uint8_t width[kMaxBlocks];
};

// 1 <= blocks <= kMaxBlocks (the callers check).
BlockSplit split_blocks(int blocks) noexcept;

inline std::uint64_t low_bits(int width) noexcept {
    return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
}
inline std::uint64_t block_value(const BlockSplit &s, int b, std::uint64_t fp) noexcept {
    return (fp >> s.shift[b]) & low_bits(s.width[b]);
}

// The key of a table whose blocks come in `order` (s.blocks entries), and back.
std::uint64_t permute_blocks(const BlockSplit &s, const std::uint8_t *order, std::uint64_t fp) noexcept;
std::uint64_t unpermute_blocks(const BlockSplit &s, const std::uint8_t *order, std::uint64_t key) noexcept;

// Bits of the first m blocks of `order`.
int order_prefix_bits(const BlockSplit &s, const std::uint8_t *order, int m) noexcept;

// C(n, r), saturating at SIZE_MAX.
std::size_t binomial(int n, int r) noexcept;

// Tables of the layout for radius k over `blocks` blocks: C(blocks, k), 0
// unless 0 <= k <= blocks <= kMaxBlocks.
std::size_t layout_tables(int k, int blocks) noexcept;

// Writes the orders of every table, `blocks` bytes each, table after table.
void layout_orders(int k, int blocks, std::uint8_t *orders) noexcept;

// Leading blocks of its key equal, in some table of the layout (k_layout,
// blocks), for every pair within k: all of them at k = 0; for rotations the
// longest run of equal blocks on the cycle, ceil((B - k) / k); otherwise the
// B - K of the prefix set. 0 when k > k_layout (no guarantee).
int guaranteed_blocks(int k_layout, int blocks, int k) noexcept;

// The layout of the all-pairs search: one sort per table, pairs reported by
// exactly one table.
class BlockLayout {
public:
    // Most tables a layout may have: C(B, k) grows fast and every table costs a sort.
    static constexpr std::size_t kMaxTables = 4096;

    // 1 <= k <= 64, k <= blocks <= 64 and C(blocks, k) <= kMaxTables;
    // throws Error(invalid_argument) otherwise.
    BlockLayout(int k, int blocks);

    int k() const noexcept { return k_; }
    int blocks() const noexcept { return split_.blocks; }
    std::size_t tables() const noexcept { return prefix_set_.size(); }
    // Bits in table t's prefix at radius k (0 for the brute-force layout).
    int prefix_bits(std::size_t t) const noexcept { return prefix_bits_[t]; }

    std::uint64_t permute(std::size_t t, std::uint64_t fp) const noexcept {
        return permute_blocks(split_, &orders_[t * static_cast<std::size_t>(split_.blocks)], fp);
    }
    std::uint64_t unpermute(std::size_t t, std::uint64_t key) const noexcept {
        return unpermute_blocks(split_, &orders_[t * static_cast<std::size_t>(split_.blocks)], key);
    }

    // The one table that reports a pair whose fingerprints differ by x (with
    // popcount(x) <= k): the table whose prefix is the B - k lowest-numbered
    // blocks in which x is zero. Every pair is found in that table, so
    // reporting it only there reports it exactly once, with no set of pairs
    // already seen.
    bool reports_pair(std::size_t t, std::uint64_t x) const noexcept;

    // The layout with the least estimated work for the m distinct fingerprints
    // `distinct`: per table a radix sort plus the candidate pairs its prefix lets
    // through, counted on a sample of 4096, so that blocks with little entropy
    // (skewed fingerprints) are avoided. 1 <= k <= 64.
    static int choose_blocks(int k, const std::uint64_t *distinct, std::size_t m);

    // The same choice from a sample of s values standing for m (s <= m), for
    // callers that cannot hold all values. With `need_prefix` the brute-force
    // layout (B = k, one run holding everything) is never chosen.
    static int choose_blocks_sampled(int k, const std::uint64_t *sample, std::size_t s, std::size_t m,
                                     bool need_prefix);

private:
    int k_;
    BlockSplit split_;
    std::vector<std::uint8_t> orders_;     // tables x blocks
    std::vector<std::uint64_t> prefix_set_;  // each a bit set of block numbers
    std::vector<int> prefix_bits_;
};

namespace index {

// The index's layouts: radius K <= 32 and at most kMaxTables tables, so that
// the metapage can hold every table's order.
constexpr int kMaxIndexDistance = 32;
constexpr int kMaxIndexBlocks = kMaxIndexDistance + 1;
constexpr int kMaxTables = 64;

struct Layout {
    int max_distance;
    int blocks;
    int tables;
    std::uint8_t order[kMaxTables][kMaxIndexBlocks];
    std::uint8_t guaranteed[kMaxIndexDistance + 1];  // guaranteed_blocks per radius
    BlockSplit split;
};

// Tables of the index layout (K, blocks); 0 when the index cannot have it
// (blocks outside K + 1..kMaxIndexBlocks, or more than kMaxTables tables).
int index_layout_tables(int max_distance, int blocks) noexcept;

// The layout (K, blocks); index_layout_tables(K, blocks) must be > 0.
Layout make_layout(int max_distance, int blocks) noexcept;

// The layout as a metapage stored it; false when the parts cannot be one.
bool stored_layout(int max_distance, int blocks, int tables, const std::uint8_t (*order)[kMaxIndexBlocks],
                   const std::uint8_t *guaranteed, Layout *out) noexcept;

// The blocks of the layout for K with `tables` tables; 0 when there is none.
int blocks_for_tables(int max_distance, int tables) noexcept;

// Manku's two-level layouts, for 2 <= K <= 4 (K = 1 would repeat the layout of
// 4 blocks; past 4 they need more blocks than the metapage holds). With n = K
// + 1, the fingerprint is cut into n^2 blocks: n top blocks of n blocks each.
// A pair within K agrees on some top block; the n(n - 1) blocks outside it
// hold the at most K differences, so cut into n groups of n - 1 they agree on
// some group. Table (i, j) starts with top block i, then group j of the blocks
// outside it: n^2 tables whose 2n - 1 leading blocks are equal in one of them
// for every pair within K (K = 3: 16 tables of 28 bits). Smaller radii are
// guaranteed no longer prefix. Asked for by its table count, which no
// single-level layout of the same K has.
constexpr int kMinTwoLevelDistance = 2;
constexpr int kMaxTwoLevelDistance = 4;
// (K + 1)^2, or 0 when K has no two-level layout.
int two_level_tables(int max_distance) noexcept;
// two_level_tables(K) must be > 0.
Layout make_two_level_layout(int max_distance) noexcept;

// The default layout for K on a table of `rows` rows: the fewest tables (the
// index's size is proportional to them) whose expected random prefix matches
// per table and probe, rows / 2^prefix_bits, stay within kCollisionsPerTable
// (about one leaf); among layouts of at most kDefaultMaxTables tables, and if
// none qualifies the one with the fewest random matches per probe.
constexpr double kCollisionsPerTable = 500;
constexpr int kDefaultMaxTables = 16;
int default_blocks(int max_distance, double rows) noexcept;

inline std::uint64_t table_key(const Layout &l, int t, std::uint64_t fp) noexcept {
    return permute_blocks(l.split, l.order[t], fp);
}
inline std::uint64_t table_fingerprint(const Layout &l, int t, std::uint64_t key) noexcept {
    return unpermute_blocks(l.split, l.order[t], key);
}

// Bits of table t's key that a query at radius k may fix: some table's are
// equal for every pair within k. 0 when k > max_distance.
int prefix_bits(const Layout &l, int t, int k) noexcept;
// The shortest of them over the tables.
int min_prefix_bits(const Layout &l, int k) noexcept;

// The inclusive range of keys sharing the first `bits` bits of `key`.
struct KeyRange {
    std::uint64_t lo;
    std::uint64_t hi;
};
inline KeyRange prefix_range(std::uint64_t key, int bits) noexcept {
    if (bits <= 0) return {0, ~std::uint64_t{0}};
    if (bits >= 64) return {key, key};
    std::uint64_t low_mask = ~std::uint64_t{0} >> bits;
    return {key & ~low_mask, key | low_mask};
}

// Where the probes at radius k look (multi-index hashing: Norouzi, Punjani and
// Fleet, "Fast Search in Hamming Space with Multi-Index Hashing", CVPR 2012):
// every pair within k has, in some table t, keys whose first bits[t] bits
// differ in at most `slack` of them. Within max_distance that is the exact
// prefix of prefix_bits(t, k) bits (slack 0). Beyond it, by pigeonhole over
// the blocks:
//   - single-level layouts: the B - K blocks with the fewest differences hold
//     at most floor(k (B - K) / B) of them, and those blocks are some table's
//     prefix (each set of B - K blocks is one table's; a rotation's is its
//     first block);
//   - two-level layouts (n = K + 1): some top block holds d <= floor(k / n)
//     differences and some group of the blocks outside it at most
//     floor((k - d) / n), together one table's prefix.
// Beyond max_distance the tables' orders are checked for what the argument
// needs (a stored layout is trusted for its shape only): `valid` is false
// where they lack it, and for k outside 0..64.
struct ProbeShape {
    int bits[kMaxTables];
    int slack;
    bool valid;
};
ProbeShape probe_shape(const Layout &l, int k) noexcept;

// Prefixes within `slack` bit flips of a `bits`-bit prefix: the sum of
// C(bits, i) for i <= slack, saturating at SIZE_MAX.
std::size_t prefix_variants(int bits, int slack) noexcept;
// The key ranges of the prefixes within `slack` flips of key's first `bits`
// bits (1 <= bits <= 64), ascending; `out` holds prefix_variants(bits, slack).
void variant_ranges(std::uint64_t key, int bits, int slack, KeyRange *out) noexcept;

// How a scan at radius k reads the index: the probes of probe_shape, one
// pass per table and prefix within the slack, or a sweep of one table.
// Within max_distance it probes while `fraction` < 1 (K = 32's 1- and 2-bit
// prefixes cover more than a table: every query sweeps). Beyond it, each
// probe visits a leaf, at about kProbeCost of the time a sweep spends on one
// of its `leaves` (one table's: 1M random rows, 0.5 ms for 548 probes against
// 2.0-2.9 ms for a sweep of 1,200 leaves); the probes, plus the fraction of a
// table they cover, must cost at most kProbeShareOfSweep of the sweep. (The
// default layout at 1M random rows: k = 4..7 takes 68 probes, 8..11 548, and
// from 12, where 2,788 probes took as long as the sweep, it sweeps.)
struct ScanPlan {
    bool sweep;
    ProbeShape shape;
    std::size_t probes;  // passes over prefix ranges, over all tables
    double fraction;     // of one table the probes are expected to read: sum of variants x 2^-bits
};
constexpr double kProbeCost = 0.4;
constexpr double kProbeShareOfSweep = 0.8;
constexpr std::size_t kMaxProbes = std::size_t{1} << 14;
ScanPlan plan_scan(const Layout &l, int k, double leaves_per_table) noexcept;

// The order in which a query's probes run. A later probe skips the subtrees
// whose keys all lie in an earlier probe's prefix (those rows are reported
// there), which it can tell only once the subtree's shared key bits cover
// that prefix: so the earlier prefixes should lead the later tables' keys
// after their own. Rotations (table t's blocks t, t + 1, ...) run backwards
// for that; the other layouts run forwards: the combinations list the
// remaining blocks in ascending order, and a two-level table starts with its
// top group, as the tables before it in that group do. (Under an MVCC
// snapshot, where the index's directory shows one probe's range wider than
// another's, the scan runs the narrowest first instead, keeping this
// order between equals.)
void probe_order(const Layout &l, int *tables) noexcept;

}  // namespace index
}  // namespace simhash
