// Sorting the row pointers a scan found: keys of up to 48 bits, (heap block << 16)
// | offset, thousands per query where rows crowd (a k = 6 probe of the PEP
// versions finds 3,600). Least significant byte first: one pass counts every
// byte's values, then one scatter per byte that the keys do not all share (a
// table's blocks and offsets vary in three or four of the six). Linear, where
// a comparison sort spent a tenth of such a query. The bits above the sorted
// ones are not sorted on but travel with each key, and keys with equal sorted
// bits keep their order: a plain scan packs each hit's TID into fewer bits
// and puts the hit's position above them, to sort its hits (40 bytes each)
// by moving 8-byte keys.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bit_width.hpp"

namespace simhash::index {

// Below this many keys a comparison sort is cheap and the counting pass's
// 6 x 256 counters would dominate (a choice, not a measured crossover).
constexpr std::size_t kTidSortMinRadix = 256;

constexpr int kTidKeyBits = 48;
constexpr std::uint64_t kTidSortBits = (std::uint64_t{1} << kTidKeyBits) - 1;

// Rewrites keys[0, n), 48-bit TID keys, as (block - least block) << offset
// bits | offset, the fewest bits that keep their order, and returns how many
// that is (at least 1). poll() as for sort_tids.
template <typename Poll>
int pack_tids(std::uint64_t *keys, std::size_t n, Poll &&poll) {
    std::uint64_t least = kTidSortBits, most = 0, offsets = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFF) == 0) poll();
        least = std::min(least, keys[i] >> 16);
        most = std::max(most, keys[i] >> 16);
        offsets |= keys[i] & 0xFFFF;
    }
    if (n == 0) return 1;
    int offset_bits = std::max(bit_width(offsets), 1);
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFF) == 0) poll();
        keys[i] = ((keys[i] >> 16) - least) << offset_bits | (keys[i] & 0xFFFF);
    }
    return offset_bits + bit_width(most - least);
}

// Sorts keys[0, n) by their low `bits` bits (1 to 48), stably; scratch holds
// n keys. poll() is called every 65,536 keys of each pass; it may raise or
// longjmp (the frames hold nothing with a destructor).
template <typename Poll>
void sort_tids(std::uint64_t *keys, std::uint64_t *scratch, std::size_t n, int bits, Poll &&poll) {
    const std::uint64_t sorted = (std::uint64_t{1} << bits) - 1;
    if (n < kTidSortMinRadix) {
        std::stable_sort(keys, keys + n, [sorted](std::uint64_t a, std::uint64_t b) { return (a & sorted) < (b & sorted); });
        return;
    }
    constexpr int kMaxBytes = kTidKeyBits / 8;
    const int nbytes = std::min((bits + 7) / 8, kMaxBytes);
    std::size_t starts[kMaxBytes][256] = {};
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFF) == 0) poll();
        for (int b = 0; b < nbytes; ++b) ++starts[b][((keys[i] & sorted) >> (8 * b)) & 255];
    }
    std::uint64_t *from = keys, *to = scratch;
    for (int b = 0; b < nbytes; ++b) {
        std::size_t *start = starts[b];
        auto digit = [&](std::uint64_t key) { return ((key & sorted) >> (8 * b)) & 255; };
        if (start[digit(from[0])] == n) continue;  // every key has this byte
        std::size_t sum = 0;
        for (int v = 0; v < 256; ++v) {
            std::size_t c = start[v];
            start[v] = sum;
            sum += c;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if ((i & 0xFFFF) == 0) poll();
            to[start[digit(from[i])]++] = from[i];
        }
        std::swap(from, to);
    }
    if (from != keys) std::memcpy(keys, from, n * sizeof(std::uint64_t));
}

}  // namespace simhash::index
