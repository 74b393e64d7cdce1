// The index's layouts: fixed-size, so that the metapage stores them whole.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "block_layout.hpp"

namespace simhash::index {

int index_layout_tables(int max_distance, int blocks) noexcept {
    if (max_distance < 0 || max_distance > kMaxIndexDistance || blocks <= max_distance || blocks > kMaxIndexBlocks)
        return 0;
    std::size_t tables = layout_tables(max_distance, blocks);
    return tables > static_cast<std::size_t>(kMaxTables) ? 0 : static_cast<int>(tables);
}

Layout make_layout(int max_distance, int blocks) noexcept {
    Layout l{};
    l.max_distance = max_distance;
    l.blocks = blocks;
    l.tables = index_layout_tables(max_distance, blocks);
    l.split = split_blocks(blocks);
    std::uint8_t orders[kMaxTables * kMaxIndexBlocks];
    layout_orders(max_distance, blocks, orders);
    for (int t = 0; t < l.tables; ++t)
        for (int i = 0; i < blocks; ++i) l.order[t][i] = orders[t * blocks + i];
    for (int k = 0; k <= max_distance; ++k) l.guaranteed[k] = static_cast<std::uint8_t>(guaranteed_blocks(max_distance, blocks, k));
    return l;
}

// Checks the shape only (each order a permutation, the guarantee shrinking
// with the radius); that the guarantee holds is the builder's promise.
bool stored_layout(int max_distance, int blocks, int tables, const std::uint8_t (*order)[kMaxIndexBlocks],
                   const std::uint8_t *guaranteed, Layout *out) noexcept {
    if (max_distance < 0 || max_distance > kMaxIndexDistance || blocks <= max_distance || blocks > kMaxIndexBlocks ||
        tables < 1 || tables > kMaxTables)
        return false;
    Layout l{};
    l.max_distance = max_distance;
    l.blocks = blocks;
    l.tables = tables;
    l.split = split_blocks(blocks);
    for (int t = 0; t < tables; ++t) {
        std::uint64_t seen = 0;
        for (int i = 0; i < blocks; ++i) {
            if (order[t][i] >= blocks) return false;
            seen |= std::uint64_t{1} << order[t][i];
            l.order[t][i] = order[t][i];
        }
        if (seen != low_bits(blocks)) return false;
    }
    for (int k = 0; k <= max_distance; ++k) {
        if (guaranteed[k] < 1 || guaranteed[k] > blocks || (k > 0 && guaranteed[k] > guaranteed[k - 1])) return false;
        l.guaranteed[k] = guaranteed[k];
    }
    *out = l;
    return true;
}

int blocks_for_tables(int max_distance, int tables) noexcept {
    for (int blocks = max_distance + 1; blocks <= kMaxIndexBlocks; ++blocks)
        if (index_layout_tables(max_distance, blocks) == tables) return blocks;
    return 0;
}

int two_level_tables(int max_distance) noexcept {
    if (max_distance < kMinTwoLevelDistance || max_distance > kMaxTwoLevelDistance) return 0;
    return (max_distance + 1) * (max_distance + 1);
}

Layout make_two_level_layout(int max_distance) noexcept {
    const int n = max_distance + 1;
    Layout l{};
    l.max_distance = max_distance;
    l.blocks = n * n;
    l.tables = n * n;
    l.split = split_blocks(l.blocks);
    for (int top = 0; top < n; ++top) {
        std::uint8_t outside[kMaxIndexBlocks];
        int m = 0;
        for (int b = 0; b < l.blocks; ++b)
            if (b / n != top) outside[m++] = static_cast<std::uint8_t>(b);
        for (int group = 0; group < n; ++group) {
            std::uint8_t *order = l.order[top * n + group];
            int at = 0;
            for (int i = 0; i < n; ++i) order[at++] = static_cast<std::uint8_t>(top * n + i);
            for (int i = 0; i < m; ++i)
                if (i / (n - 1) == group) order[at++] = outside[i];
            for (int i = 0; i < m; ++i)
                if (i / (n - 1) != group) order[at++] = outside[i];
        }
    }
    l.guaranteed[0] = static_cast<std::uint8_t>(l.blocks);
    for (int k = 1; k <= max_distance; ++k) l.guaranteed[k] = static_cast<std::uint8_t>(2 * n - 1);
    return l;
}

int prefix_bits(const Layout &l, int t, int k) noexcept {
    if (k < 0 || k > l.max_distance) return 0;
    return order_prefix_bits(l.split, l.order[t], l.guaranteed[k]);
}

int min_prefix_bits(const Layout &l, int k) noexcept {
    int bits = 64;
    for (int t = 0; t < l.tables; ++t) bits = std::min(bits, prefix_bits(l, t, k));
    return bits;
}

void probe_order(const Layout &l, int *tables) noexcept {
    bool rotation = l.tables == l.blocks && l.blocks > 1;
    for (int t = 0; t < l.tables && rotation; ++t)
        for (int i = 0; i < l.blocks && rotation; ++i) rotation = l.order[t][i] == (t + i) % l.blocks;
    for (int i = 0; i < l.tables; ++i) tables[i] = rotation ? l.tables - 1 - i : i;
}

namespace {

// The tables' orders that the argument beyond max_distance rests on, checked
// on the layout as stored rather than assumed from its counts, so that no
// metapage written by other rules is probed by these. Two-level: Manku's
// orders exactly. Otherwise every set of the first `m` blocks leads some
// table: the tables' sets of m blocks are distinct and C(B, m) of them.
bool two_level_orders(const Layout &l) noexcept {
    if (two_level_tables(l.max_distance) != l.tables || l.blocks != l.tables) return false;
    const Layout m = make_two_level_layout(l.max_distance);
    for (int t = 0; t < l.tables; ++t)
        for (int i = 0; i < l.blocks; ++i)
            if (l.order[t][i] != m.order[t][i]) return false;
    return true;
}

bool every_block_set_leads(const Layout &l, int m) noexcept {
    if (binomial(l.blocks, m) != static_cast<std::size_t>(l.tables)) return false;
    std::uint64_t sets[kMaxTables];
    for (int t = 0; t < l.tables; ++t) {
        sets[t] = 0;
        for (int i = 0; i < m; ++i) sets[t] |= std::uint64_t{1} << l.order[t][i];
    }
    std::sort(sets, sets + l.tables);
    return std::adjacent_find(sets, sets + l.tables) == sets + l.tables;
}

}  // namespace

ProbeShape probe_shape(const Layout &l, int k) noexcept {
    ProbeShape s{};
    s.valid = k >= 0 && k <= 64;
    if (!s.valid) return s;
    if (k <= l.max_distance) {
        for (int t = 0; t < l.tables; ++t) s.bits[t] = prefix_bits(l, t, k);
        return s;
    }
    const int prefix_blocks = l.guaranteed[l.max_distance];
    if (two_level_orders(l)) {
        const int n = l.max_distance + 1;
        for (int d = 0; d <= k / n; ++d) s.slack = std::max(s.slack, d + (k - d) / n);
    } else {
        s.valid = every_block_set_leads(l, prefix_blocks);
        s.slack = k * prefix_blocks / l.blocks;
    }
    for (int t = 0; t < l.tables; ++t) s.bits[t] = order_prefix_bits(l.split, l.order[t], prefix_blocks);
    return s;
}

std::size_t prefix_variants(int bits, int slack) noexcept {
    std::size_t sum = 0;
    for (int i = 0; i <= std::min(slack, bits); ++i) {
        const std::size_t c = binomial(bits, i);
        if (c > SIZE_MAX - sum) return SIZE_MAX;
        sum += c;
    }
    return sum;
}

void variant_ranges(std::uint64_t key, int bits, int slack, KeyRange *out) noexcept {
    // Flip sets in the prefix's own bit positions (0 = its lowest), as
    // positions picked in increasing order: pick[0] < pick[1] < ...
    const int shift = 64 - bits;
    std::size_t n = 0;
    int pick[64];
    for (int r = 0; r <= std::min(slack, bits); ++r) {
        for (int i = 0; i < r; ++i) pick[i] = i;
        for (;;) {
            std::uint64_t flips = 0;
            for (int i = 0; i < r; ++i) flips |= std::uint64_t{1} << (shift + pick[i]);
            out[n++] = prefix_range(key ^ flips, bits);
            int i = r - 1;
            while (i >= 0 && pick[i] == bits - r + i) --i;
            if (i < 0) break;
            ++pick[i];
            for (int j = i + 1; j < r; ++j) pick[j] = pick[j - 1] + 1;
        }
    }
    std::sort(out, out + n, [](const KeyRange &a, const KeyRange &b) { return a.lo < b.lo; });
}

ScanPlan plan_scan(const Layout &l, int k, double leaves_per_table) noexcept {
    ScanPlan p{};
    p.shape = probe_shape(l, k);
    if (!p.shape.valid) {
        p.sweep = true;
        return p;
    }
    for (int t = 0; t < l.tables; ++t) {
        const std::size_t v = p.shape.slack == 0 ? 1 : prefix_variants(p.shape.bits[t], p.shape.slack);
        p.probes = v > SIZE_MAX - p.probes ? SIZE_MAX : p.probes + v;
        p.fraction += static_cast<double>(v) * std::ldexp(1.0, -p.shape.bits[t]);
    }
    if (k <= l.max_distance)
        p.sweep = p.fraction >= 1.0;
    else
        p.sweep = p.fraction >= 1.0 || p.probes > kMaxProbes ||
                  kProbeCost * static_cast<double>(p.probes) + p.fraction * leaves_per_table >
                      kProbeShareOfSweep * leaves_per_table;
    return p;
}

int default_blocks(int max_distance, double rows) noexcept {
    int best = max_distance + 1;
    double best_matches = INFINITY;
    for (int blocks = max_distance + 1; blocks <= kMaxIndexBlocks; ++blocks) {
        const int tables = index_layout_tables(max_distance, blocks);
        if (tables == 0 || tables > kDefaultMaxTables) break;
        const Layout l = make_layout(max_distance, blocks);
        const double per_table = rows * std::ldexp(1.0, -min_prefix_bits(l, max_distance));
        if (per_table <= kCollisionsPerTable) return blocks;
        if (per_table * tables < best_matches) {
            best_matches = per_table * tables;
            best = blocks;
        }
    }
    return best;
}

}  // namespace simhash::index
