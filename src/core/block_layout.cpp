#include "block_layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "error.hpp"

namespace simhash {

std::size_t binomial(int n, int r) noexcept {
    if (r < 0 || r > n) return 0;
    if (r > n - r) r = n - r;
    unsigned __int128 c = 1;
    for (int i = 1; i <= r; ++i) {
        c = c * static_cast<unsigned>(n - r + i) / static_cast<unsigned>(i);
        if (c > std::numeric_limits<std::size_t>::max()) return std::numeric_limits<std::size_t>::max();
    }
    return static_cast<std::size_t>(c);
}

// Widths differ by at most one bit; block 0 holds the most significant bits.
BlockLayout::BlockLayout(int k, int blocks) : k_(k), blocks_(blocks) {
    if (k < 1 || k > 64 || blocks < k || blocks > 64)
        throw Error(Error::Kind::invalid_argument,
                    "invalid block layout: k = " + std::to_string(k) + ", blocks = " + std::to_string(blocks));
    if (binomial(blocks, k) > kMaxLayoutTables)
        throw Error(Error::Kind::invalid_argument,
                    "block layout with " + std::to_string(blocks) + " blocks for k = " + std::to_string(k) +
                        " has too many tables");
    int top = 64;
    for (int b = 0; b < blocks; ++b) {
        int width = 64 / blocks + (b < 64 % blocks ? 1 : 0);
        top -= width;
        block_shift_[b] = top;
        block_width_[b] = width;
        block_mask_[b] = (width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1)) << top;
    }
    // Every set of blocks - k blocks, in lexicographic order.
    const int chosen = blocks - k;
    std::vector<int> pick(static_cast<std::size_t>(chosen));
    for (int i = 0; i < chosen; ++i) pick[static_cast<std::size_t>(i)] = i;
    for (;;) {
        std::uint64_t set = 0;
        int bits = 0;
        for (int b : pick) {
            set |= std::uint64_t{1} << b;
            bits += block_width_[b];
        }
        tables_.push_back(set);
        prefix_bits_.push_back(bits);
        int i = chosen - 1;
        while (i >= 0 && pick[static_cast<std::size_t>(i)] == blocks - chosen + i) --i;
        if (i < 0) break;
        ++pick[static_cast<std::size_t>(i)];
        for (int j = i + 1; j < chosen; ++j) pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
    }
}

std::uint64_t BlockLayout::permute(std::size_t t, std::uint64_t fp) const noexcept {
    const std::uint64_t set = tables_[t];
    if (set == 0) return fp;
    std::uint64_t out = 0;
    int filled = 0;
    // Two passes over the blocks: the prefix blocks, then the rest.
    for (int pass = 0; pass < 2; ++pass) {
        for (int b = 0; b < blocks_; ++b) {
            bool in_prefix = (set >> b) & 1;
            if (in_prefix != (pass == 0)) continue;
            int w = block_width_[b];
            std::uint64_t bits = (fp & block_mask_[b]) >> block_shift_[b];
            filled += w;
            out |= bits << (64 - filled);
        }
    }
    return out;
}

std::uint64_t BlockLayout::unpermute(std::size_t t, std::uint64_t permuted) const noexcept {
    const std::uint64_t set = tables_[t];
    if (set == 0) return permuted;
    std::uint64_t out = 0;
    int filled = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int b = 0; b < blocks_; ++b) {
            bool in_prefix = (set >> b) & 1;
            if (in_prefix != (pass == 0)) continue;
            int w = block_width_[b];
            filled += w;
            std::uint64_t bits = (permuted >> (64 - filled)) & (block_mask_[b] >> block_shift_[b]);
            out |= bits << block_shift_[b];
        }
    }
    return out;
}

bool BlockLayout::reports_pair(std::size_t t, std::uint64_t x) const noexcept {
    std::uint64_t lowest_zero_blocks = 0;
    int need = blocks_ - k_;
    for (int b = 0; b < blocks_ && need > 0; ++b) {
        if ((x & block_mask_[b]) == 0) {
            lowest_zero_blocks |= std::uint64_t{1} << b;
            --need;
        }
    }
    return lowest_zero_blocks == tables_[t];
}

// Candidates a table lets through, estimated on a sample: the pairs of sampled
// values sharing the table's prefix, scaled by (m / s)^2. The sample is every
// (m / s)-th value of `distinct`.
static double sampled_candidates(const BlockLayout &layout, std::size_t t, const std::vector<std::uint64_t> &sample,
                                 std::size_t m, std::vector<std::uint64_t> &keys) {
    const int bits = layout.prefix_bits(t);
    const double s = static_cast<double>(sample.size());
    if (bits == 0) return static_cast<double>(m) * static_cast<double>(m - 1) / 2.0;
    keys.clear();
    for (std::uint64_t v : sample) keys.push_back(layout.permute(t, v) >> (64 - bits));
    std::sort(keys.begin(), keys.end());
    double pairs = 0;
    for (std::size_t i = 0; i < keys.size();) {
        std::size_t j = i;
        while (j < keys.size() && keys[j] == keys[i]) ++j;
        double r = static_cast<double>(j - i);
        pairs += r * (r - 1) / 2.0;
        i = j;
    }
    const double scale = static_cast<double>(m) / s;
    return pairs * scale * scale;
}

int BlockLayout::choose_blocks(int k, const std::uint64_t *distinct, std::size_t m) {
    if (m < 2) return k;
    constexpr std::size_t kSample = 4096;
    std::vector<std::uint64_t> sample;
    const std::size_t s = std::min(m, kSample);
    for (std::size_t j = 0; j < s; ++j) sample.push_back(distinct[j * m / s]);
    return choose_blocks_sampled(k, sample.data(), s, m, false);
}

int BlockLayout::choose_blocks_sampled(int k, const std::uint64_t *sample_values, std::size_t s, std::size_t m,
                                       bool need_prefix) {
    if (k >= 64) return k;  // no layout with a prefix exists
    if (m < 2 || s == 0) return need_prefix ? k + 1 : k;
    constexpr std::size_t kSampledTables = 512;
    std::size_t evaluated = 0;
    const std::vector<std::uint64_t> sample(sample_values, sample_values + s);
    std::vector<std::uint64_t> keys;
    const double md = static_cast<double>(m);
    int best = need_prefix ? k + 1 : k;
    double best_cost = need_prefix ? std::numeric_limits<double>::infinity()
                                   : md * (md - 1) / 2.0 + 2.0 * md;  // one table, no prefix: all pairs
    for (int blocks = k + 1; blocks <= 64; ++blocks) {
        std::size_t tables = binomial(blocks, k);
        if (tables > kMaxLayoutTables) break;
        const BlockLayout layout(k, blocks);
        // Sorting alone grows with the tables: past the best cost, stop.
        double cost = 0;
        for (std::size_t t = 0; t < tables && cost < best_cost; ++t)
            cost += md * (std::ceil(layout.prefix_bits(t) / 8.0) + 2.0);
        if (cost >= best_cost) break;
        // Sampling costs a sort of the sample per table: past a budget of tables
        // (large k), assume random data instead.
        for (std::size_t t = 0; t < tables && cost < best_cost; ++t, ++evaluated)
            cost += evaluated < kSampledTables ? sampled_candidates(layout, t, sample, m, keys)
                                               : md * md / std::ldexp(1.0, layout.prefix_bits(t) + 1);
        if (cost < best_cost) {
            best_cost = cost;
            best = blocks;
        }
    }
    return best;
}

}  // namespace simhash
