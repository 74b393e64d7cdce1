// How the batch all-pairs search of Manku, Jain and Das Sarma (WWW 2007)
// splits a fingerprint: 64 bits in B contiguous blocks; one table per choice of
// B - k blocks, whose bits form the table's prefix. Two fingerprints within k
// bits differ in at most k blocks, so they agree on at least B - k blocks and
// therefore share the prefix of at least one table (pigeonhole).
//
// B = k is the degenerate layout: one table with an empty prefix, i.e. every
// pair is a candidate (brute force), which is the cheapest for tiny inputs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace simhash {

// Most tables a layout may have: C(B, k) grows fast and every table costs a sort.
constexpr std::size_t kMaxLayoutTables = 4096;

class BlockLayout {
public:
    // 1 <= k <= 64, k <= blocks <= 64 and C(blocks, k) <= kMaxLayoutTables;
    // throws Error(invalid_argument) otherwise.
    BlockLayout(int k, int blocks);

    int k() const noexcept { return k_; }
    int blocks() const noexcept { return blocks_; }
    std::size_t tables() const noexcept { return tables_.size(); }
    // Bits in table t's prefix (0 for the brute-force layout).
    int prefix_bits(std::size_t t) const noexcept { return prefix_bits_[t]; }

    // Bijective bit permutation for table t: its prefix blocks move to the top,
    // in block order, then the other blocks. Distances are unchanged by it.
    std::uint64_t permute(std::size_t t, std::uint64_t fp) const noexcept;
    // The inverse of permute(t, .).
    std::uint64_t unpermute(std::size_t t, std::uint64_t permuted) const noexcept;

    // The one table that reports a pair whose fingerprints differ by x (with
    // popcount(x) <= k): the table made of the B - k lowest-numbered blocks in
    // which x is zero. Every pair is found in that table, so reporting it only
    // there reports it exactly once, with no set of pairs already seen.
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
    int blocks_;
    std::uint64_t block_mask_[64];
    int block_shift_[64];
    int block_width_[64];
    std::vector<std::uint64_t> tables_;  // each a bit set of block numbers
    std::vector<int> prefix_bits_;
};

// C(n, r), saturating at SIZE_MAX.
std::size_t binomial(int n, int r) noexcept;

}  // namespace simhash
