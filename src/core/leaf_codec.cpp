#include "leaf_codec.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace simhash::index {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the packed bit stream is read with little-endian loads");

namespace {

__extension__ typedef unsigned __int128 u128;

inline std::uint64_t low_mask(int bits) noexcept { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
inline std::uint64_t high_mask(int bits) noexcept { return bits <= 0 ? 0 : ~std::uint64_t{0} << (64 - bits); }
inline int bit_width(std::uint64_t v) noexcept { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

std::size_t segment_bytes(std::size_t n, int entry_bits) noexcept {
    return kPackedHeaderSize + (n * static_cast<std::size_t>(entry_bits) + 7) / 8;
}

// The entry_bits-wide field at bit `bit` of the packed entries, low bits first.
inline u128 load_bits(const std::uint8_t *entries, std::size_t bit) noexcept {
    u128 v;
    std::memcpy(&v, entries + bit / 8, sizeof(v));
    return v >> (bit % 8);
}

// ORs `v` in at bit `bit`, touching no byte at or past `end`.
inline void store_bits(std::uint8_t *entries, std::size_t end, std::size_t bit, u128 v) noexcept {
    std::size_t at = bit / 8, len = std::min(sizeof(u128), end - at);
    u128 w = 0;
    std::memcpy(&w, entries + at, len);
    w |= v << (bit % 8);
    std::memcpy(entries + at, &w, len);
}

inline std::size_t near_body(const std::uint8_t *entries, std::size_t from, std::size_t to, int entry_bits,
                             std::uint64_t mask, std::uint64_t qsuffix, int radius, std::uint16_t *out) noexcept {
    std::size_t m = 0, bit = from * entry_bits;
    if (64 - __builtin_clzll(mask | 1) <= 57) {
        // The usual case (suffixes of up to 57 bits): one 8-byte load per entry.
        for (std::size_t i = from; i < to; ++i, bit += entry_bits) {
            std::uint64_t v;
            std::memcpy(&v, entries + bit / 8, sizeof(v));
            out[m] = static_cast<std::uint16_t>(i);
            m += __builtin_popcountll(((v >> (bit % 8)) & mask) ^ qsuffix) <= radius;  // branch-free: few pass
        }
        return m;
    }
    for (std::size_t i = from; i < to; ++i, bit += entry_bits) {
        std::uint64_t suffix = static_cast<std::uint64_t>(load_bits(entries, bit)) & mask;
        out[m] = static_cast<std::uint16_t>(i);
        m += __builtin_popcountll(suffix ^ qsuffix) <= radius;
    }
    return m;
}

// PostgreSQL's build flags target baseline x86-64, where __builtin_popcountll
// is a libgcc call; a copy compiled for POPCNT runs when the CPU has it.
#if defined(__x86_64__)
__attribute__((target("popcnt"))) std::size_t near_popcnt(const std::uint8_t *entries, std::size_t from,
                                                           std::size_t to, int entry_bits, std::uint64_t mask,
                                                           std::uint64_t qsuffix, int radius,
                                                           std::uint16_t *out) noexcept {
    return near_body(entries, from, to, entry_bits, mask, qsuffix, radius, out);
}
#endif

std::size_t near_segment(const std::uint8_t *entries, std::size_t from, std::size_t to, int entry_bits,
                         std::uint64_t mask, std::uint64_t qsuffix, int radius, std::uint16_t *out) noexcept {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("popcnt")) return near_popcnt(entries, from, to, entry_bits, mask, qsuffix, radius, out);
#endif
    return near_body(entries, from, to, entry_bits, mask, qsuffix, radius, out);
}

}  // namespace

PackedHeader packed_header(const std::uint8_t *area) noexcept {
    PackedHeader h;
    std::uint16_t count, bytes;
    std::memcpy(&count, area, 2);
    std::memcpy(&bytes, area + 2, 2);
    h.count = count;
    h.bytes = bytes;
    h.prefix_len = area[4];
    h.block_bits = area[5];
    h.offset_bits = area[6];
    std::memcpy(&h.prefix, area + 8, 8);
    std::memcpy(&h.base_block, area + 16, 4);
    return h;
}

void PackSizer::add(const EntryKey &e) noexcept {
    if (n_ == 0) {
        min_key_ = max_key_ = e.key;
        min_block_ = max_block_ = e.block;
    }
    min_key_ = std::min(min_key_, e.key);
    max_key_ = std::max(max_key_, e.key);
    min_block_ = std::min(min_block_, e.block);
    max_block_ = std::max(max_block_, e.block);
    max_offset_ = std::max(max_offset_, e.offset);
    ++n_;
}

std::size_t PackSizer::bytes() const noexcept {
    if (n_ > kMaxPackedEntries) return std::numeric_limits<std::size_t>::max() / 2;
    if (n_ == 0) return kPackedHeaderSize;
    int prefix = min_key_ == max_key_ ? 64 : __builtin_clzll(min_key_ ^ max_key_);
    int bits = 64 - prefix + bit_width(max_block_ - min_block_) + bit_width(max_offset_);
    return segment_bytes(n_, bits);
}

std::size_t PackSizer::bytes_with(const EntryKey &e) const noexcept {
    PackSizer s = *this;
    s.add(e);
    return s.bytes();
}

std::size_t leaf_write(const EntryKey *packed, std::size_t np, const EntryKey *tail, std::size_t nt,
                       std::uint8_t *area) noexcept {
    int prefix_len = np == 0 ? 64 : packed[0].key == packed[np - 1].key ? 64 : __builtin_clzll(packed[0].key ^ packed[np - 1].key);
    std::uint32_t base = np == 0 ? 0 : packed[0].block, top = base;
    std::uint16_t max_offset = 0;
    for (std::size_t i = 0; i < np; ++i) {
        base = std::min(base, packed[i].block);
        top = std::max(top, packed[i].block);
        max_offset = std::max(max_offset, packed[i].offset);
    }
    int block_bits = bit_width(top - base), offset_bits = bit_width(max_offset);
    int suffix_bits = 64 - prefix_len, entry_bits = suffix_bits + block_bits + offset_bits;
    std::size_t bytes = segment_bytes(np, entry_bits);

    std::uint16_t count16 = static_cast<std::uint16_t>(np), bytes16 = static_cast<std::uint16_t>(bytes);
    std::uint64_t prefix = np == 0 ? 0 : packed[0].key & high_mask(prefix_len);
    std::memcpy(area, &count16, 2);
    std::memcpy(area + 2, &bytes16, 2);
    area[4] = static_cast<std::uint8_t>(prefix_len);
    area[5] = static_cast<std::uint8_t>(block_bits);
    area[6] = static_cast<std::uint8_t>(offset_bits);
    area[7] = 0;
    std::memcpy(area + 8, &prefix, 8);
    std::memcpy(area + 16, &base, 4);

    std::uint8_t *entries = area + kPackedHeaderSize;
    std::size_t end = bytes - kPackedHeaderSize;
    std::memset(entries, 0, end);
    std::uint64_t suffix_mask = low_mask(suffix_bits);
    for (std::size_t i = 0; i < np; ++i) {
        std::uint64_t rest = (packed[i].block - base) | (std::uint64_t{packed[i].offset} << block_bits);
        u128 v = (packed[i].key & suffix_mask) | (static_cast<u128>(rest) << suffix_bits);
        store_bits(entries, end, i * entry_bits, v);
    }
    for (std::size_t i = 0; i < nt; ++i) leaf_put(area + bytes, i, tail[i]);
    return bytes + nt * kLeafEntrySize;
}

Leaf::Leaf(const std::uint8_t *area, std::size_t bytes) noexcept : area_(area), h_(packed_header(area)) {
    tail_n_ = (bytes - h_.bytes) / kLeafEntrySize;
    suffix_mask_ = low_mask(h_.suffix_bits());
}

EntryKey Leaf::get(std::size_t i) const noexcept {
    if (i >= h_.count) return leaf_get(area_ + h_.bytes, i - h_.count);
    u128 v = load_bits(area_ + kPackedHeaderSize, i * h_.entry_bits());
    std::uint64_t rest = static_cast<std::uint64_t>(v >> h_.suffix_bits());
    EntryKey e;
    e.key = h_.prefix | (static_cast<std::uint64_t>(v) & suffix_mask_);
    e.block = h_.base_block + static_cast<std::uint32_t>(rest & low_mask(h_.block_bits));
    e.offset = static_cast<std::uint16_t>((rest >> h_.block_bits) & low_mask(h_.offset_bits));
    return e;
}

std::size_t Leaf::lower_bound(std::uint64_t key) const noexcept {
    std::uint64_t pmask = ~suffix_mask_;
    if ((key & pmask) != h_.prefix) return (key & pmask) < h_.prefix ? 0 : h_.count;
    std::uint64_t want = key & suffix_mask_;
    std::size_t lo = 0, hi = h_.count;
    const std::uint8_t *entries = area_ + kPackedHeaderSize;
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        if ((static_cast<std::uint64_t>(load_bits(entries, mid * h_.entry_bits())) & suffix_mask_) < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

std::size_t Leaf::upper_bound(std::uint64_t key) const noexcept {
    return key == ~std::uint64_t{0} ? h_.count : lower_bound(key + 1);
}

std::size_t Leaf::near(std::uint64_t lo, std::uint64_t hi, std::uint64_t qkey, int radius,
                       std::uint16_t *out) const noexcept {
    std::size_t m = 0;
    if (lo > hi || radius < 0) return 0;
    int prefix_distance = __builtin_popcountll((h_.prefix ^ qkey) & ~suffix_mask_);
    if (h_.count > 0 && prefix_distance <= radius) {
        std::size_t from = lower_bound(lo), to = upper_bound(hi);
        m = near_segment(area_ + kPackedHeaderSize, from, to, h_.entry_bits(), suffix_mask_, qkey & suffix_mask_,
                         radius - prefix_distance, out);
    }
    for (std::size_t j = 0; j < tail_n_; ++j) {
        std::uint64_t key;
        std::memcpy(&key, area_ + h_.bytes + j * kLeafEntrySize, 8);
        if (key >= lo && key <= hi && __builtin_popcountll(key ^ qkey) <= radius)
            out[m++] = static_cast<std::uint16_t>(h_.count + j);
    }
    return m;
}

bool Leaf::contains(const EntryKey &e) const noexcept {
    for (std::size_t i = lower_bound(e.key); i < h_.count; ++i) {
        int c = compare_keys(get(i), e);
        if (c == 0) return true;
        if (c > 0) break;
    }
    for (std::size_t j = 0; j < tail_n_; ++j)
        if (compare_keys(leaf_get(area_ + h_.bytes, j), e) == 0) return true;
    return false;
}

std::size_t Leaf::unpack(EntryKey *out) const noexcept {
    for (std::size_t i = 0; i < size(); ++i) out[i] = get(i);
    return size();
}

const char *leaf_check(const std::uint8_t *area, std::size_t bytes, const EntryKey &low, bool has_high,
                       const EntryKey &high, std::size_t *bad) noexcept {
    *bad = 0;
    if (bytes < kPackedHeaderSize) return "leaf shorter than its header";
    PackedHeader h = packed_header(area);
    if (h.prefix_len > 64 || h.block_bits > 32 || h.offset_bits > 16 || area[7] != 0)
        return "packed header widths out of range";
    if (h.count > kMaxPackedEntries) return "too many packed entries";
    if (h.bytes != segment_bytes(h.count, h.entry_bits())) return "packed length disagrees with count and widths";
    if (h.bytes > bytes || (bytes - h.bytes) % kLeafEntrySize != 0) return "packed length disagrees with the leaf's";
    if ((h.prefix & low_mask(h.suffix_bits())) != 0) return "packed prefix has bits below its length";
    Leaf leaf(area, bytes);
    const std::uint8_t *entries = area + kPackedHeaderSize;
    for (std::size_t i = 0; i < leaf.size(); ++i) {
        *bad = i;
        if (i < h.count) {
            u128 v = load_bits(entries, i * h.entry_bits());
            std::uint64_t delta = static_cast<std::uint64_t>(v >> h.suffix_bits()) & low_mask(h.block_bits);
            if (std::uint64_t{h.base_block} + delta > std::numeric_limits<std::uint32_t>::max())
                return "packed block past 2^32 - 1";
            if (i > 0 && !key_less(leaf.get(i - 1), leaf.get(i))) return "packed entries out of order";
        }
        EntryKey e = leaf.get(i);
        if (key_less(e, low) || (has_high && !key_less(e, high))) return "leaf key out of range";
    }
    return nullptr;
}

namespace {

// Both halves of the sorted `all` fully packed, split at the point nearest
// the median where each fits `limit`; false when there is none.
bool split_packed(const EntryKey *all, std::size_t n, std::size_t limit, std::size_t *at) noexcept {
    // The longest prefix that fits, and the longest suffix that fits.
    PackSizer left, right;
    std::size_t left_max = 0, right_min = n;
    while (left_max < n && left.bytes_with(all[left_max]) <= limit) left.add(all[left_max++]);
    while (right_min > 0 && right.bytes_with(all[right_min - 1]) <= limit) right.add(all[--right_min]);
    std::size_t lo = std::max<std::size_t>(1, right_min), hi = std::min(n - 1, left_max);
    if (lo > hi) return false;
    *at = std::clamp(n / 2, lo, hi);
    return true;
}

}  // namespace

bool leaf_split(const std::uint8_t *area, std::size_t bytes, std::size_t limit, std::size_t capacity,
                EntryKey *scratch, std::uint8_t *left, std::uint8_t *right, LeafSplit *out) noexcept {
    Leaf leaf(area, bytes);
    std::size_t n = leaf.unpack(scratch), np = leaf.packed_count();
    if (n < 2) return false;
    EntryKey *seg = scratch, *tail = scratch + np, *all = scratch + n;
    std::sort(tail, scratch + n, key_less);
    std::merge(seg, seg + np, tail, scratch + n, all, key_less);
    std::size_t at;
    if (split_packed(all, n, limit, &at)) {
        out->separator = all[at];
        out->left_bytes = leaf_write(all, at, nullptr, 0, left);
        out->right_bytes = leaf_write(all + at, n - at, nullptr, 0, right);
        return true;
    }
    EntryKey sep = all[n / 2];
    std::size_t seg_at = std::lower_bound(seg, seg + np, sep, key_less) - seg;
    std::size_t tail_at = std::lower_bound(tail, scratch + n, sep, key_less) - tail;
    PackSizer ls, rs;
    for (std::size_t i = 0; i < np; ++i) (i < seg_at ? ls : rs).add(seg[i]);
    std::size_t nt = n - np;
    if (ls.bytes() + tail_at * kLeafEntrySize > capacity || rs.bytes() + (nt - tail_at) * kLeafEntrySize > capacity)
        return false;
    out->separator = sep;
    out->left_bytes = leaf_write(seg, seg_at, tail, tail_at, left);
    out->right_bytes = leaf_write(seg + seg_at, np - seg_at, tail + tail_at, nt - tail_at, right);
    return true;
}

}  // namespace simhash::index
