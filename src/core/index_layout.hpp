// The index layout: how fingerprints are split into blocks and rotated into
// tables so that any two within max_distance share a table prefix (Manku,
// Jain & Das Sarma's pigeonhole, with rotations instead of all subsets).
#pragma once
#include <cstdint>

namespace simhash::index {

constexpr int kMaxIndexDistance = 32;
constexpr int kMaxTables = kMaxIndexDistance + 1;

// B = K + 1 blocks, the first 64 mod B one bit longer; table t holds every
// fingerprint rotated left by start[t], so block t leads its key.
struct Layout {
    int max_distance;
    int tables;
    std::uint8_t start[kMaxTables];
    std::uint8_t width[kMaxTables];
};

// max_distance must be 0..kMaxIndexDistance (the caller checks and reports).
Layout make_layout(int max_distance) noexcept;

inline std::uint64_t rotl64(std::uint64_t v, int s) noexcept {
    return s == 0 ? v : (v << s) | (v >> (64 - s));
}
inline std::uint64_t rotr64(std::uint64_t v, int s) noexcept {
    return s == 0 ? v : (v >> s) | (v << (64 - s));
}

inline std::uint64_t table_key(const Layout &l, int t, std::uint64_t fp) noexcept {
    return rotl64(fp, l.start[t]);
}
inline std::uint64_t table_fingerprint(const Layout &l, int t, std::uint64_t key) noexcept {
    return rotr64(key, l.start[t]);
}

// Leading blocks certain to be equal, in some table, for a pair within k:
// the B - k equal blocks of the cycle fall into at most k runs, so one run
// has ceil((B - k) / k) blocks; k = 0 gives all B. 0 when k > max_distance.
int guaranteed_blocks(const Layout &l, int k) noexcept;

// Bits of table t's key that a query at radius k may fix: the widths of the
// guaranteed blocks starting at block t (cyclically). 0 when k > max_distance.
int prefix_bits(const Layout &l, int t, int k) noexcept;

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

// Expected fraction of one table a probe at radius k reads, summed over all
// tables: above 1 a sweep of one table is cheaper than the probes.
double probe_fraction(const Layout &l, int k) noexcept;

}  // namespace simhash::index
