// Fuzzes the batch all-pairs search: on small inputs, the pairs it reports
// (under any block layout) and the clusters it forms must equal brute force.
// Inputs build fingerprints from earlier ones by a few bit flips, so
// near-duplicates, exact copies and long shared prefixes are common.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "block_layout.hpp"
#include "hamming.hpp"
#include "near_pairs.hpp"

namespace {

constexpr std::size_t kMaxRows = 32;

// Brute-force distances (-1 beyond k), ticked off as the search reports pairs:
// a pair reported twice, out of order, at a wrong distance or not at all traps.
struct Check {
    std::size_t n;
    signed char expected[kMaxRows][kMaxRows];
    bool seen[kMaxRows][kMaxRows];
    std::size_t reported;
};

void tick_off(void *context, const simhash::NearPair *pairs, std::size_t count) {
    auto *c = static_cast<Check *>(context);
    for (std::size_t i = 0; i < count; ++i) {
        const simhash::NearPair &p = pairs[i];
        if (p.a >= p.b || p.b >= c->n || c->expected[p.a][p.b] != p.distance || c->seen[p.a][p.b]) __builtin_trap();
        c->seen[p.a][p.b] = true;
        ++c->reported;
    }
}

std::uint32_t find(std::vector<std::uint32_t> &parent, std::uint32_t x) {
    while (parent[x] != x) x = parent[x];
    return x;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 3) return 0;
    const int k = data[0] % 9;
    // The layout: chosen by cost (brute force at this size), the classic k + 1
    // blocks, or k + 2 blocks while that stays a few tables (unit tests try more).
    const int layout = data[1] % 3;
    std::vector<std::uint64_t> fp;
    std::uint64_t fresh = 0x9E3779B97F4A7C15ull * (data[2] + 1);
    for (std::size_t i = 3; i + 2 < size && fp.size() < kMaxRows; i += 3) {
        std::uint8_t src = data[i], f1 = data[i + 1], f2 = data[i + 2];
        std::uint64_t v;
        if (fp.empty() || src == 0xFF) {
            fresh ^= fresh << 13, fresh ^= fresh >> 7, fresh ^= fresh << 17;
            v = fresh ^ (std::uint64_t{f1} << 56) ^ f2;
        } else {
            v = fp[src % fp.size()];
            if (f1 & 0x80) v ^= std::uint64_t{1} << (f1 % 64);
            if (f2 & 0x80) v ^= std::uint64_t{1} << (f2 % 64);
            if ((f1 & 0x40) && (f2 & 0x40)) v ^= std::uint64_t{1} << ((f1 ^ f2) % 64);
        }
        fp.push_back(v);
    }
    const std::size_t n = fp.size();

    static Check check;
    check.n = n;
    check.reported = 0;
    std::size_t expected_pairs = 0;
    std::vector<std::uint32_t> parent(n);
    for (std::uint32_t a = 0; a < n; ++a) parent[a] = a;
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = a + 1; b < n; ++b) {
            int d = simhash::hamming_distance(fp[a], fp[b]);
            check.seen[a][b] = false;
            check.expected[a][b] = static_cast<signed char>(d <= k ? d : -1);
            if (d > k) continue;
            ++expected_pairs;
            std::uint32_t ra = find(parent, a), rb = find(parent, b);
            if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);  // root = lowest row
        }

    simhash::NearPairsOptions o;
    o.k = k;
    o.blocks = (k == 0 || layout == 0) ? 0 : (layout == 2 && k <= 4) ? k + 2 : k + 1;
    o.context = &check;
    o.emit = tick_off;
    simhash::find_near_pairs(fp.data(), n, o);
    if (check.reported != expected_pairs) __builtin_trap();

    // Clusters on half the inputs: the pairs check above is the costlier property.
    if (data[2] & 1) return 0;
    std::vector<std::uint32_t> rep(n), size_of(n), count(n, 0);
    simhash::find_clusters(fp.data(), n, o, rep.data(), size_of.data());
    for (std::uint32_t a = 0; a < n; ++a) ++count[find(parent, a)];
    for (std::uint32_t a = 0; a < n; ++a) {
        std::uint32_t root = find(parent, a);
        if (rep[a] != root || size_of[a] != count[root]) __builtin_trap();
    }
    return 0;
}
