// Fuzzes the guarantees the index is exact by, for every index layout,
// two-level ones included: if d(a, b) <= k <= K, some table's first
// prefix_bits(t, k) key bits agree; at k = d(a, b), within K or beyond,
// some table's first probe_shape bits differ in at most its slack.
// The input picks K, the blocks (the high bit of its byte standing for the
// two-level layout), a and the flipped bit positions (duplicates allowed).
#include <cstdint>
#include <cstring>

#include "block_layout.hpp"
#include "hamming.hpp"

using namespace simhash::index;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 10) return 0;
    int K = data[0] % (kMaxIndexDistance + 1);
    int blocks = K + 1 + data[1] % (kMaxIndexBlocks - K);
    if (index_layout_tables(K, blocks) == 0) blocks = K + 1;
    const bool two_level = data[1] >= 128 && two_level_tables(K) > 0;
    std::uint64_t a;
    std::memcpy(&a, data + 2, 8);
    std::uint64_t b = a;
    std::size_t flips = size - 10;
    if (flips > 64) flips = 64;
    for (std::size_t i = 0; i < flips; ++i) b ^= std::uint64_t{1} << (data[10 + i] % 64);
    int d = simhash::hamming_distance(a, b);
    Layout l = two_level ? make_two_level_layout(K) : make_layout(K, blocks);
    for (int t = 0; t < l.tables; ++t)
        if (table_fingerprint(l, t, table_key(l, t, a)) != a) __builtin_trap();
    for (int k = d; k <= K; ++k) {
        bool found = false;
        for (int t = 0; t < l.tables && !found; ++t) {
            KeyRange r = prefix_range(table_key(l, t, a), prefix_bits(l, t, k));
            std::uint64_t kb = table_key(l, t, b);
            found = r.lo <= kb && kb <= r.hi;
        }
        if (!found) __builtin_trap();
    }
    // (The scan at radius d is the one that must find the pair at d; wider
    // radii are tested by pairs farther apart.)
    const ProbeShape shape = probe_shape(l, d);
    if (!shape.valid) __builtin_trap();
    bool found = false;
    for (int t = 0; t < l.tables && !found; ++t) {
        std::uint64_t x = table_key(l, t, a) ^ table_key(l, t, b);
        found = shape.bits[t] > 0 && simhash::hamming_distance(x >> (64 - shape.bits[t]), 0) <= shape.slack;
    }
    if (!found) __builtin_trap();
    return 0;
}
