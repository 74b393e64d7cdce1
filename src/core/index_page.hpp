// Entry codecs of the index pages, over plain byte areas (the glue passes the
// area between the page header and pd_lower). Internal pages are sorted by
// the low bound of each child; leaves (leaf_codec.hpp) pack most entries and
// keep the plain 14-byte form below for their append tail. Keys are composite (table key, heap TID) so that
// every entry of a table is unique and any run of equal fingerprints can split.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace simhash::index {

struct EntryKey {
    std::uint64_t key;
    std::uint32_t block;
    std::uint16_t offset;
};

inline int compare_keys(const EntryKey &a, const EntryKey &b) noexcept {
    if (a.key != b.key) return a.key < b.key ? -1 : 1;
    if (a.block != b.block) return a.block < b.block ? -1 : 1;
    if (a.offset != b.offset) return a.offset < b.offset ? -1 : 1;
    return 0;
}
inline bool key_less(const EntryKey &a, const EntryKey &b) noexcept { return compare_keys(a, b) < 0; }
// key_less as a type, so that std::sort inlines the comparison (a function
// pointer is called per comparison: a fifth of a build's time at 1M rows).
struct KeyLess {
    bool operator()(const EntryKey &a, const EntryKey &b) const noexcept { return key_less(a, b); }
};

// Packed little-endian-agnostic layouts (memcpy of the host's fields).
constexpr std::size_t kLeafEntrySize = 14;      // key 8, block 4, offset 2
constexpr std::size_t kInternalEntrySize = 34;  // low bound 14, child block 4, key summary 16

inline EntryKey leaf_get(const std::uint8_t *area, std::size_t i) noexcept {
    EntryKey e;
    const std::uint8_t *p = area + i * kLeafEntrySize;
    std::memcpy(&e.key, p, 8);
    std::memcpy(&e.block, p + 8, 4);
    std::memcpy(&e.offset, p + 12, 2);
    return e;
}
inline void leaf_put(std::uint8_t *area, std::size_t i, const EntryKey &e) noexcept {
    std::uint8_t *p = area + i * kLeafEntrySize;
    std::memcpy(p, &e.key, 8);
    std::memcpy(p + 8, &e.block, 4);
    std::memcpy(p + 12, &e.offset, 2);
}

// A downlink, and what it knows of the keys below it: each has every bit of
// keys_and and no bit outside keys_or. An insert weakens the summary before
// its key lands below (summary_add), deletions never tighten it, so a scan
// that reads the entry can rule out the whole subtree from it, as it does a
// leaf from the leaf's own summary. The default, a summary that rules out
// nothing, is what a downlink made without one says.
struct InternalEntry {
    EntryKey low;
    std::uint32_t child;
    std::uint64_t keys_and = 0, keys_or = ~std::uint64_t{0};
};
// The summary of no key: summary_add(e, k, k) then allows k alone.
constexpr std::uint64_t kNoKeysAnd = ~std::uint64_t{0}, kNoKeysOr = 0;

inline void summary_add(InternalEntry *e, std::uint64_t keys_and, std::uint64_t keys_or) noexcept {
    e->keys_and &= keys_and;
    e->keys_or |= keys_or;
}
// The bits in which every key a summary allows agrees; their values are
// keys_and's there.
inline std::uint64_t summary_shared_bits(std::uint64_t keys_and, std::uint64_t keys_or) noexcept {
    return ~(keys_and ^ keys_or);
}
// Whether every key the summary (inner_and, inner_or) allows, `outer`'s
// allows too: (key, key) for one key.
inline bool summary_covers(const InternalEntry &outer, std::uint64_t inner_and, std::uint64_t inner_or) noexcept {
    return (outer.keys_and & ~inner_and) == 0 && (inner_or & ~outer.keys_or) == 0;
}

inline EntryKey internal_low(const std::uint8_t *area, std::size_t i) noexcept {
    return leaf_get(area + i * kInternalEntrySize, 0);
}
inline InternalEntry internal_get(const std::uint8_t *area, std::size_t i) noexcept {
    InternalEntry e;
    const std::uint8_t *p = area + i * kInternalEntrySize;
    e.low = leaf_get(p, 0);
    std::memcpy(&e.child, p + kLeafEntrySize, 4);
    std::memcpy(&e.keys_and, p + kLeafEntrySize + 4, 8);
    std::memcpy(&e.keys_or, p + kLeafEntrySize + 12, 8);
    return e;
}
inline void internal_put(std::uint8_t *area, std::size_t i, const InternalEntry &e) noexcept {
    std::uint8_t *p = area + i * kInternalEntrySize;
    leaf_put(p, 0, e.low);
    std::memcpy(p + kLeafEntrySize, &e.child, 4);
    std::memcpy(p + kLeafEntrySize + 4, &e.keys_and, 8);
    std::memcpy(p + kLeafEntrySize + 12, &e.keys_or, 8);
}

// The child whose range holds `key`: the last entry whose low bound <= key
// (entry 0 when key is below every bound, which a correct descent never asks).
std::size_t internal_find(const std::uint8_t *area, std::size_t n, const EntryKey &key) noexcept;

// Inserts `e` at position `pos`, shifting the rest right (room for n + 1).
void internal_insert(std::uint8_t *area, std::size_t n, std::size_t pos, const InternalEntry &e) noexcept;

// Moves entries [n/2, n) of `left` to `right`; returns the low bound of the
// first moved entry, the separator.
EntryKey internal_split(std::uint8_t *left, std::size_t n, std::uint8_t *right, std::size_t *n_left,
                        std::size_t *n_right) noexcept;

// Structural check used by simhash_index_check: false on the first
// violation, which *bad names.
bool internal_sorted_within(const std::uint8_t *area, std::size_t n, const EntryKey &low, bool has_high,
                            const EntryKey &high, std::size_t *bad) noexcept;

}  // namespace simhash::index
