// Choosing a layout: for the all-pairs search from a sample of the data, for
// the index from its radius and the table's size.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "block_layout.hpp"

namespace simhash {

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
        if (tables > BlockLayout::kMaxTables) break;
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
