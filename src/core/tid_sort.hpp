// Sorting the row pointers a scan found: keys of 48 bits, (heap block << 16)
// | offset, thousands per query where rows crowd (a k = 6 probe of the PEP
// versions finds 3,600). Least significant byte first: one pass counts every
// byte's values, then one scatter per byte that the keys do not all share (a
// table's blocks and offsets vary in three or four of the six). Linear, where
// a comparison sort spent a tenth of such a query. The top 16 bits of each
// key are not sorted on but travel with it, and keys with equal low bits keep
// their order: a plain scan puts each hit's position there, to sort its hits
// (40 bytes each) by moving 8-byte keys.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace simhash::index {

// Below this many keys a comparison sort is cheap and the counting pass's
// 6 x 256 counters would dominate (a choice, not a measured crossover).
constexpr std::size_t kTidSortMinRadix = 256;

constexpr std::uint64_t kTidSortBits = (std::uint64_t{1} << 48) - 1;

// Sorts keys[0, n) by their low 48 bits, stably; scratch holds n keys. poll()
// is called every 65,536 keys of each pass; it may raise or longjmp (the
// frames hold nothing with a destructor).
template <typename Poll>
void sort_tids(std::uint64_t *keys, std::uint64_t *scratch, std::size_t n, Poll &&poll) {
    if (n < kTidSortMinRadix) {
        std::stable_sort(keys, keys + n, [](std::uint64_t a, std::uint64_t b) {
            return (a & kTidSortBits) < (b & kTidSortBits);
        });
        return;
    }
    constexpr int kBytes = 6;
    std::size_t starts[kBytes][256] = {};
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFF) == 0) poll();
        for (int b = 0; b < kBytes; ++b) ++starts[b][(keys[i] >> (8 * b)) & 255];
    }
    std::uint64_t *from = keys, *to = scratch;
    for (int b = 0; b < kBytes; ++b) {
        std::size_t *start = starts[b];
        if (start[(from[0] >> (8 * b)) & 255] == n) continue;  // every key has this byte
        std::size_t sum = 0;
        for (int v = 0; v < 256; ++v) {
            std::size_t c = start[v];
            start[v] = sum;
            sum += c;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if ((i & 0xFFFF) == 0) poll();
            to[start[(from[i] >> (8 * b)) & 255]++] = from[i];
        }
        std::swap(from, to);
    }
    if (from != keys) std::memcpy(keys, from, n * sizeof(std::uint64_t));
}

}  // namespace simhash::index
