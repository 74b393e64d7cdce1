// A radix guide to 64-bit keys sorted ascending: guide[b] is the first
// position whose key's top `bits` bits are >= b (2^bits + 1 values, the last
// one the count). A search for a key then reads only the stretch of positions
// that share its top bits: about one position when 2^bits is near the count
// and the keys spread, the whole array (a plain binary search) when they all
// share their top bits. A binary search of a large array misses the CPU cache
// at nearly every halving; the guide takes one miss and then a short stretch.
// The idf tables and the index directory use it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace simhash {

// The fewest bits whose 2^bits reaches `count`, at most `most`.
inline int radix_guide_bits(std::size_t count, int most) noexcept {
    int bits = 0;
    while (bits < most && (std::size_t{1} << bits) < count) ++bits;
    return bits;
}

// Fills guide[0 .. 2^bits] for `count` keys, key_at(i) the i-th in ascending order.
template <class KeyAt>
void build_radix_guide(std::size_t count, int bits, KeyAt key_at, std::uint32_t *guide) noexcept {
    const std::uint64_t slots = std::uint64_t{1} << bits;
    std::size_t i = 0;
    for (std::uint64_t b = 0; b < slots; ++b) {
        while (i < count && bits > 0 && (key_at(i) >> (64 - bits)) < b) ++i;
        guide[b] = static_cast<std::uint32_t>(i);
    }
    guide[slots] = static_cast<std::uint32_t>(count);
}

// The positions [first, last) whose keys share `key`'s top bits: every key
// before them is smaller than `key`, every key from `last` on larger.
struct GuideSpan {
    std::size_t first, last;
};
inline GuideSpan radix_guide_span(const std::uint32_t *guide, int bits, std::uint64_t key) noexcept {
    const std::uint64_t b = bits == 0 ? 0 : key >> (64 - bits);
    return {guide[b], guide[b + 1]};
}

}  // namespace simhash
