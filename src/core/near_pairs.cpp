#include "near_pairs.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "block_layout.hpp"
#include "hamming.hpp"

namespace simhash {
namespace {

// Polls the interrupt check every 64Ki ticks: cheap enough for inner loops.
class Poller {
public:
    explicit Poller(InterruptCheck check) : check_(check) {}
    void tick(std::size_t amount = 1) {
        count_ += amount;
        if (count_ >= 65536) {
            count_ = 0;
            now();
        }
    }
    void now() const {
        if (check_ && check_()) throw Error(Error::Kind::cancelled, "near-duplicate search cancelled");
    }

private:
    InterruptCheck check_;
    std::size_t count_ = 0;
};

struct Entry {
    std::uint64_t value;
    std::uint32_t index;
};

// Stable LSD radix sort on the top `bits` bits of value. Digits are 8 bits, or
// 16 on large inputs (half the passes; the counts then live on the heap). A pass
// whose digit is the same everywhere is skipped (clustered data).
// Below kSmallSort entries a comparison sort is cheaper; ties on the top bits
// keep index order, as the radix passes do.
constexpr std::size_t kSmallSort = 24;
constexpr std::size_t kWideDigits = std::size_t{1} << 18;

void radix_sort_top(std::vector<Entry> &entries, std::vector<Entry> &scratch, int bits, Poller &poll) {
    const int digit = entries.size() >= kWideDigits ? 16 : 8;
    const int passes = (bits + digit - 1) / digit;
    if (entries.size() <= kSmallSort) {
        const int shift = 64 - digit * passes;
        auto top = [shift](std::uint64_t v) { return shift >= 64 ? 0 : v >> shift; };
        std::sort(entries.begin(), entries.end(), [&](const Entry &a, const Entry &b) {
            return top(a.value) != top(b.value) ? top(a.value) < top(b.value) : a.index < b.index;
        });
        return;
    }
    const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
    std::vector<std::size_t> count((std::size_t{1} << digit) + 1);
    scratch.resize(entries.size());
    for (int p = 0; p < passes; ++p) {
        const int shift = 64 - digit * passes + digit * p;
        std::fill(count.begin(), count.end(), 0);
        for (const Entry &e : entries) ++count[((e.value >> shift) & mask) + 1];
        poll.tick(entries.size());
        if (entries.empty() || count[((entries[0].value >> shift) & mask) + 1] == entries.size()) continue;
        for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
        for (const Entry &e : entries) scratch[count[(e.value >> shift) & mask]++] = e;
        poll.tick(entries.size());
        entries.swap(scratch);
    }
}

// Rows grouped by fingerprint: distinct[i] is held by rows[start[i] .. start[i+1]),
// in ascending row order.
struct Groups {
    std::vector<std::uint64_t> distinct;
    std::vector<std::uint32_t> start;
    std::vector<std::uint32_t> rows;
};

Groups group_rows(const std::uint64_t *fingerprints, std::size_t n, Poller &poll) {
    if (n > kMaxNearPairRows)
        throw Error(Error::Kind::limit_exceeded, "too many rows for a near-duplicate search: " + std::to_string(n));
    Groups g;
    {
        std::vector<Entry> entries(n), scratch;
        for (std::size_t i = 0; i < n; ++i) entries[i] = Entry{fingerprints[i], static_cast<std::uint32_t>(i)};
        radix_sort_top(entries, scratch, 64, poll);
        scratch = std::vector<Entry>();
        g.rows.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || entries[i].value != entries[i - 1].value) {
                g.distinct.push_back(entries[i].value);
                g.start.push_back(static_cast<std::uint32_t>(i));
            }
            g.rows[i] = entries[i].index;
        }
    }
    g.start.push_back(static_cast<std::uint32_t>(n));
    return g;
}

// Calls on_pair(u, v, distance) once for every pair of distinct fingerprints
// (indices into g.distinct) within k >= 1 bits.
template <typename OnPair>
__attribute__((always_inline)) inline void sweep_tables_body(const Groups &g, const NearPairsOptions &options,
                                                             Poller &poll, OnPair &on_pair) {
    const std::size_t m = g.distinct.size();
    if (m < 2) return;
    const int blocks = options.blocks ? options.blocks : BlockLayout::choose_blocks(options.k, g.distinct.data(), m);
    const BlockLayout layout(options.k, blocks);
    const int k = options.k;
    std::vector<Entry> entries(m), scratch;
    for (std::size_t t = 0; t < layout.tables(); ++t) {
        for (std::size_t i = 0; i < m; ++i)
            entries[i] = Entry{layout.permute(t, g.distinct[i]), static_cast<std::uint32_t>(i)};
        poll.tick(m);
        const int bits = layout.prefix_bits(t);
        radix_sort_top(entries, scratch, bits, poll);
        const std::uint64_t prefix_mask = bits == 0 ? 0 : ~std::uint64_t{0} << (64 - bits);
        const bool single_table = layout.tables() == 1;
        for (std::size_t s = 0; s < m;) {
            std::size_t e = s + 1;
            while (e < m && ((entries[e].value ^ entries[s].value) & prefix_mask) == 0) ++e;
            for (std::size_t i = s; i + 1 < e; ++i) {
                const std::uint64_t vi = entries[i].value;
                for (std::size_t j = i + 1; j < e; ++j) {
                    int d = hamming_distance(vi, entries[j].value);
                    if (d > k) continue;
                    std::uint32_t u = entries[i].index, v = entries[j].index;
                    if (!single_table && !layout.reports_pair(t, g.distinct[u] ^ g.distinct[v])) continue;
                    on_pair(u, v, d);
                }
                poll.tick(e - i);
            }
            poll.tick();
            s = e;
        }
        if (options.progress) options.progress(options.context, t + 1, layout.tables());
    }
}

// The candidate checks are mostly popcounts. PostgreSQL's build flags target
// baseline x86-64, where __builtin_popcountll is a libgcc call (a third of the
// time at 1M rows); a copy compiled for POPCNT is used when the CPU has it.
#if defined(__x86_64__)
template <typename OnPair>
__attribute__((target("popcnt"))) void sweep_tables_popcnt(const Groups &g, const NearPairsOptions &options,
                                                           Poller &poll, OnPair &on_pair) {
    sweep_tables_body(g, options, poll, on_pair);
}
#endif

template <typename OnPair>
void sweep_tables(const Groups &g, const NearPairsOptions &options, Poller &poll, OnPair &&on_pair) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("popcnt")) return sweep_tables_popcnt(g, options, poll, on_pair);
#endif
    sweep_tables_body(g, options, poll, on_pair);
}

void check_k(const NearPairsOptions &options) {
    if (options.k < 0 || options.k > 64)
        throw Error(Error::Kind::invalid_argument, "distance " + std::to_string(options.k) + " is out of range 0..64");
}

class PairBuffer {
public:
    explicit PairBuffer(const NearPairsOptions &options) : options_(options) {}
    void add(std::uint32_t a, std::uint32_t b, int d) {
        pairs_.push_back(a < b ? NearPair{a, b, d} : NearPair{b, a, d});
        if (pairs_.size() == kBatch) flush();
    }
    void flush() {
        if (!pairs_.empty()) options_.emit(options_.context, pairs_.data(), pairs_.size());
        pairs_.clear();
    }

private:
    static constexpr std::size_t kBatch = 4096;
    const NearPairsOptions &options_;
    std::vector<NearPair> pairs_;
};

}  // namespace

void find_near_pairs(const std::uint64_t *fingerprints, std::size_t n, const NearPairsOptions &options) {
    check_k(options);
    if (!options.emit) throw Error(Error::Kind::invalid_argument, "find_near_pairs needs an emit callback");
    Poller poll(options.interrupted);
    poll.now();
    const Groups g = group_rows(fingerprints, n, poll);
    PairBuffer out(options);
    // Rows sharing a fingerprint: every pair, at distance 0.
    for (std::size_t i = 0; i + 1 < g.start.size(); ++i) {
        for (std::uint32_t x = g.start[i]; x < g.start[i + 1]; ++x) {
            for (std::uint32_t y = x + 1; y < g.start[i + 1]; ++y) out.add(g.rows[x], g.rows[y], 0);
            poll.tick(g.start[i + 1] - x);
        }
    }
    if (options.k > 0) {
        sweep_tables(g, options, poll, [&](std::uint32_t u, std::uint32_t v, int d) {
            for (std::uint32_t x = g.start[u]; x < g.start[u + 1]; ++x) {
                for (std::uint32_t y = g.start[v]; y < g.start[v + 1]; ++y) out.add(g.rows[x], g.rows[y], d);
                poll.tick(g.start[v + 1] - g.start[v]);
            }
        });
    }
    out.flush();
}

void find_clusters(const std::uint64_t *fingerprints, std::size_t n, const NearPairsOptions &options,
                   std::uint32_t *representative, std::uint32_t *cluster_size) {
    check_k(options);
    Poller poll(options.interrupted);
    poll.now();
    const Groups g = group_rows(fingerprints, n, poll);
    const std::size_t m = g.distinct.size();
    // Union-find over distinct fingerprints: union by size, path halving.
    std::vector<std::uint32_t> parent(m), size(m, 1);
    for (std::size_t i = 0; i < m; ++i) parent[i] = static_cast<std::uint32_t>(i);
    auto find = [&](std::uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    if (options.k > 0) {
        sweep_tables(g, options, poll, [&](std::uint32_t u, std::uint32_t v, int) {
            u = find(u);
            v = find(v);
            if (u == v) return;
            if (size[u] < size[v]) std::swap(u, v);
            parent[v] = u;
            size[u] += size[v];
        });
    }
    // Per root: its lowest row and its number of rows.
    std::vector<std::uint32_t> first_row(m, 0xFFFFFFFFu), rows_in(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
        std::uint32_t r = find(static_cast<std::uint32_t>(i));
        first_row[r] = std::min(first_row[r], g.rows[g.start[i]]);
        rows_in[r] += g.start[i + 1] - g.start[i];
        poll.tick();
    }
    for (std::size_t i = 0; i < m; ++i) {
        std::uint32_t r = find(static_cast<std::uint32_t>(i));
        for (std::uint32_t x = g.start[i]; x < g.start[i + 1]; ++x) {
            representative[g.rows[x]] = first_row[r];
            cluster_size[g.rows[x]] = rows_in[r];
        }
        poll.tick(g.start[i + 1] - g.start[i] + 1);
    }
}

void sweep_near_pair_run(const BlockLayout *layout, std::size_t t, const RunEntry *entries, std::size_t count,
                         const NearPairsOptions &options) {
    check_k(options);
    if (!options.emit) throw Error(Error::Kind::invalid_argument, "sweep_near_pair_run needs an emit callback");
    if (layout && (layout->k() != options.k || t >= layout->tables()))
        throw Error(Error::Kind::invalid_argument, "sweep_near_pair_run: the layout does not match");
    Poller poll(options.interrupted);
    PairBuffer out(options);
    // Starts of the groups of identical values, then count.
    std::vector<std::size_t> start;
    for (std::size_t i = 0; i < count; ++i)
        if (i == 0 || entries[i].value != entries[i - 1].value) start.push_back(i);
    start.push_back(count);
    const std::size_t groups = start.size() - 1;
    const bool single_table = !layout || layout->tables() == 1;
    // Identical values agree on every block: only the table reporting x = 0 pairs them.
    if (!layout || layout->reports_pair(t, 0)) {
        for (std::size_t g = 0; g < groups; ++g) {
            if (options.spanning) {
                for (std::size_t x = start[g] + 1; x < start[g + 1]; ++x) out.add(entries[start[g]].row, entries[x].row, 0);
                poll.tick(start[g + 1] - start[g]);
                continue;
            }
            for (std::size_t x = start[g]; x < start[g + 1]; ++x) {
                for (std::size_t y = x + 1; y < start[g + 1]; ++y) out.add(entries[x].row, entries[y].row, 0);
                poll.tick(start[g + 1] - x);
            }
        }
    }
    if (options.k > 0 && layout) {
        for (std::size_t g = 0; g < groups; ++g) {
            const std::uint64_t vg = entries[start[g]].value;
            for (std::size_t h = g + 1; h < groups; ++h) {
                const std::uint64_t x = vg ^ entries[start[h]].value;
                const int d = hamming_distance(x, 0);
                if (d > options.k) continue;
                if (!single_table && !layout->reports_pair(t, layout->unpermute(t, x))) continue;
                if (options.spanning) {
                    out.add(entries[start[g]].row, entries[start[h]].row, d);
                    continue;
                }
                for (std::size_t a = start[g]; a < start[g + 1]; ++a) {
                    for (std::size_t b = start[h]; b < start[h + 1]; ++b) out.add(entries[a].row, entries[b].row, d);
                    poll.tick(start[h + 1] - start[h]);
                }
            }
            poll.tick(groups - g);
        }
    }
    out.flush();
}

}  // namespace simhash
