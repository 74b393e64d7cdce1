#include "leaf_codec.hpp"

#include "bit_width.hpp"
#include "cpu_features.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#ifdef SIMHASH_X86_DISPATCH
#include <immintrin.h>
#endif

namespace simhash::index {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the packed bit stream is read with little-endian loads");

namespace {

__extension__ typedef unsigned __int128 u128;

inline std::uint64_t low_mask(int bits) noexcept { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
inline std::uint64_t high_mask(int bits) noexcept { return bits <= 0 ? 0 : ~std::uint64_t{0} << (64 - bits); }

std::size_t segment_bytes(const PackedHeader &h) noexcept {
    return kPackedHeaderSize + h.directory_bytes() + (h.count * static_cast<std::size_t>(h.entry_bits()) + 7) / 8;
}

// The bucket of a key: its bucket_bits bits after the prefix.
inline std::uint32_t bucket_bits_of(std::uint64_t key, int suffix_bits, int bucket_bits) noexcept {
    if (bucket_bits == 0) return 0;
    return static_cast<std::uint32_t>((key & low_mask(suffix_bits)) >> (suffix_bits - bucket_bits));
}

// The widths of a segment of n entries with keys min_key..max_key, the given
// TID widths and `bucket_bits` bits of buckets (at most the suffix's).
PackedHeader plan_with(std::size_t n, std::uint64_t min_key, std::uint64_t max_key, int block_bits, int offset_bits,
                       int bucket_bits) noexcept {
    PackedHeader h{};
    h.count = n;
    h.prefix_len = n == 0 || min_key == max_key ? 64 : __builtin_clzll(min_key ^ max_key);
    h.block_bits = block_bits;
    h.offset_bits = offset_bits;
    h.prefix = n == 0 ? 0 : min_key & high_mask(h.prefix_len);
    h.bucket_bits = std::min(bucket_bits, h.suffix_bits());
    h.first_bucket = bucket_bits_of(min_key, h.suffix_bits(), h.bucket_bits);
    h.buckets = bucket_bits_of(max_key, h.suffix_bits(), h.bucket_bits) - h.first_bucket + 1;
    h.bytes = segment_bytes(h);
    return h;
}

// The same with the bucket bits that make the segment smallest (the fewest on
// a tie). The writer and PackSizer both decide here, so they agree.
PackedHeader plan_segment(std::size_t n, std::uint64_t min_key, std::uint64_t max_key, int block_bits,
                          int offset_bits) noexcept {
    PackedHeader best = plan_with(n, min_key, max_key, block_bits, offset_bits, 0);
    for (int b = 1; b <= std::min(kMaxBucketBits, best.suffix_bits()); ++b) {
        PackedHeader h = plan_with(n, min_key, max_key, block_bits, offset_bits, b);
        if (h.bytes < best.bytes) best = h;
    }
    return best;
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

// Where bucket j (1 .. buckets - 1) starts, from a directory of `bits`-bit positions.
inline std::size_t directory_start(const std::uint8_t *directory, int bits, std::size_t j) noexcept {
    std::size_t bit = (j - 1) * bits;
    std::uint32_t v;
    std::memcpy(&v, directory + bit / 8, sizeof(v));
    return (v >> (bit % 8)) & low_mask(bits);
}

// A segment's buckets, and a query's bits split the same way.
struct BucketSweep {
    const std::uint8_t *directory, *entries;
    int directory_bits, entry_bits;
    std::uint32_t first_bucket, buckets;
    std::size_t count;
    std::uint64_t low_mask, qlow;
    std::uint32_t qbucket;
};

// Positions in [from, to), starting in bucket j, within radius of the query.
// Buckets hold ~8 entries, too few for a loop each (the loop exits would
// cost more than the entries): the distance of each entry's bucket bits is
// spread into `bucket_distance` first, by 16-byte stores that the next
// bucket overwrites, and one branch-free pass per run of buckets close
// enough on their bits adds it to the entries' own. Skipping the other
// buckets matters where many keys share a long prefix with the query (1M
// keys with a common 40-bit prefix: a probe read ~170,000 entries of two
// tables); a sweep at a large radius makes one run.
struct SweepRuns {
    // Past kMaxRuns the last run spans the gaps: their entries have their
    // distances too, and fail.
    static constexpr int kMaxRuns = 32;
    std::uint8_t bucket_distance[kMaxPackedEntries + 16];
    std::size_t from[kMaxRuns], to[kMaxRuns];
    int n = 0;
};

// Always inlined, here and below, so that each form's copy really uses its
// instructions.
__attribute__((always_inline)) inline void plan_runs(const BucketSweep &s, std::size_t from, std::size_t to,
                                                     std::size_t j, int radius, SweepRuns &r) noexcept {
    // (Positions clamped to the segment, as in Leaf::bucket_start.)
    std::size_t start = j == 0 ? 0 : std::min<std::size_t>(directory_start(s.directory, s.directory_bits, j), s.count);
    for (; j < s.buckets && start < to; ++j) {
        // (Never before start: a damaged directory whose starts go back would
        // make runs overlap, and more positions than entries reach `out`.)
        std::size_t next =
            j + 1 < s.buckets ? std::min<std::size_t>(directory_start(s.directory, s.directory_bits, j + 1), s.count)
                              : s.count;
        next = std::max(next, start);
        int d = __builtin_popcount((s.first_bucket + static_cast<std::uint32_t>(j)) ^ s.qbucket);
        for (std::size_t k = start; k < next; k += 16) std::memset(r.bucket_distance + k, d, 16);
        if (d <= radius && start < next) {
            if (r.n > 0 && (r.to[r.n - 1] == start || r.n == SweepRuns::kMaxRuns)) {
                r.to[r.n - 1] = next;
            } else {
                r.from[r.n] = start;
                r.to[r.n++] = next;
            }
        }
        start = next;
    }
    // Issue every line the runs cover at once: a probe's ~150 candidates span
    // ~20 lines that are rarely cached, and one miss after another costs more
    // than the arithmetic.
    for (int k = 0; k < r.n; ++k) {
        const std::uint8_t *first = s.entries + std::max(r.from[k], from) * s.entry_bits / 8;
        const std::uint8_t *last = s.entries + (std::min(r.to[k], to) * s.entry_bits + 7) / 8;
        for (const std::uint8_t *a = first; a < last; a += 64) __builtin_prefetch(a);
    }
}

// Stored key bits up to 57: each entry's are in one 8-byte load.
inline bool one_load(const BucketSweep &s) noexcept { return 64 - __builtin_clzll(s.low_mask | 1) <= 57; }

// Positions a..b-1 of one run, one entry at a time, appended to out.
__attribute__((always_inline)) inline std::size_t scan_entries(const BucketSweep &s, const SweepRuns &r, std::size_t a,
                                                               std::size_t b, int radius, std::uint16_t *out) noexcept {
    // In locals: PostgreSQL builds with -fno-strict-aliasing, so each store
    // to `out` would otherwise reload these from `s` (a third of the loop).
    const std::uint8_t *const entries = s.entries;
    const std::size_t width = static_cast<std::size_t>(s.entry_bits);
    const std::uint64_t mask = s.low_mask, qlow = s.qlow;
    std::size_t m = 0, bit = a * width;
    if (one_load(s)) {
        for (std::size_t i = a; i < b; ++i, bit += width) {
            std::uint64_t v;
            std::memcpy(&v, entries + bit / 8, sizeof(v));
            out[m] = static_cast<std::uint16_t>(i);
            std::uint64_t low = (v >> (bit % 8)) & mask;
            m += __builtin_popcountll(low ^ qlow) + r.bucket_distance[i] <= radius;  // branch-free: few pass
        }
        return m;
    }
    for (std::size_t i = a; i < b; ++i, bit += width) {
        std::uint64_t low = static_cast<std::uint64_t>(load_bits(entries, bit)) & mask;
        out[m] = static_cast<std::uint16_t>(i);
        m += __builtin_popcountll(low ^ qlow) + r.bucket_distance[i] <= radius;
    }
    return m;
}

__attribute__((always_inline)) inline std::size_t near_body(const BucketSweep &s, std::size_t from, std::size_t to,
                                                            std::size_t j, int radius, std::uint16_t *out) noexcept {
    SweepRuns r;
    plan_runs(s, from, to, j, radius, r);
    std::size_t m = 0;
    for (int k = 0; k < r.n; ++k) m += scan_entries(s, r, std::max(r.from[k], from), std::min(r.to[k], to), radius, out + m);
    return m;
}

std::size_t near_portable(const BucketSweep &s, std::size_t from, std::size_t to, std::size_t j, int radius,
                          std::uint16_t *out) noexcept {
    return near_body(s, from, to, j, radius, out);
}

#ifdef SIMHASH_X86_DISPATCH
// PostgreSQL's build flags target baseline x86-64, where __builtin_popcountll
// is a libgcc call.
__attribute__((target("popcnt"))) std::size_t near_popcnt(const BucketSweep &s, std::size_t from, std::size_t to,
                                                           std::size_t j, int radius, std::uint16_t *out) noexcept {
    return near_body(s, from, to, j, radius, out);
}

// (GCC 12 warns that its own intrinsics' deliberately undefined vectors may
// be used uninitialized; clang knows no such warning.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// Eight entries at a time: their bit positions in one vector, a gather of
// the 8 bytes holding each, a shift per lane, and VPOPCNTQ. Where a probe's
// matches crowd its prefix (real fingerprints: a k = 6 query reads 270-400
// leaves), this loop is most of the index's own time.
__attribute__((target("popcnt,bmi2,avx512f,avx512vpopcntdq"))) std::size_t near_avx512(
    const BucketSweep &s, std::size_t from, std::size_t to, std::size_t j, int radius, std::uint16_t *out) noexcept {
    SweepRuns r;
    plan_runs(s, from, to, j, radius, r);
    const bool vector = one_load(s);  // else entry by entry: 16-byte loads
    const std::int64_t width = s.entry_bits;
    const __m512i lane_bits = _mm512_setr_epi64(0, width, 2 * width, 3 * width, 4 * width, 5 * width, 6 * width,
                                                7 * width);
    const __m512i mask = _mm512_set1_epi64(static_cast<std::int64_t>(s.low_mask));
    const __m512i qlow = _mm512_set1_epi64(static_cast<std::int64_t>(s.qlow));
    const __m512i seven = _mm512_set1_epi64(7), limit = _mm512_set1_epi64(radius);
    std::size_t m = 0;
    for (int k = 0; k < r.n; ++k) {
        std::size_t i = std::max(r.from[k], from), b = std::min(r.to[k], to);
        for (; vector && i + 8 <= b; i += 8) {
            __m512i bits = _mm512_add_epi64(_mm512_set1_epi64(static_cast<std::int64_t>(i) * width), lane_bits);
            // (Reads 8 bytes at each entry, as the one-load loop does.)
            __m512i v = _mm512_i64gather_epi64(_mm512_srli_epi64(bits, 3), s.entries, 1);
            v = _mm512_srlv_epi64(v, _mm512_and_si512(bits, seven));
            v = _mm512_xor_si512(_mm512_and_si512(v, mask), qlow);
            __m128i bucket = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(r.bucket_distance + i));
            __m512i d = _mm512_add_epi64(_mm512_popcnt_epi64(v), _mm512_cvtepu8_epi64(bucket));
            for (unsigned hit = _mm512_cmple_epi64_mask(d, limit); hit != 0; hit &= hit - 1)
                out[m++] = static_cast<std::uint16_t>(i + __builtin_ctz(hit));
        }
        m += scan_entries(s, r, i, b, radius, out + m);
    }
    return m;
}

// Four entries at a time, for CPUs with AVX2 but not AVX-512 VPOPCNTQ: the
// same shift per lane, each lane's bits counted by nibble lookups (VPSHUFB)
// summed per lane (VPSADBW). Four 8-byte loads instead of a gather: here the
// AVX2 gather made the loop slower than the POPCNT form's.
__attribute__((target("popcnt,avx2"))) std::size_t near_avx2(const BucketSweep &s, std::size_t from, std::size_t to,
                                                              std::size_t j, int radius, std::uint16_t *out) noexcept {
    SweepRuns r;
    plan_runs(s, from, to, j, radius, r);
    const bool vector = one_load(s);
    const std::size_t width = static_cast<std::size_t>(s.entry_bits);
    const std::int64_t w = s.entry_bits;
    const __m256i lane_bits = _mm256_setr_epi64x(0, w, 2 * w, 3 * w);
    const __m256i mask = _mm256_set1_epi64x(static_cast<std::int64_t>(s.low_mask));
    const __m256i qlow = _mm256_set1_epi64x(static_cast<std::int64_t>(s.qlow));
    const __m256i seven = _mm256_set1_epi64x(7), limit = _mm256_set1_epi64x(radius);
    const __m256i nibble = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    const __m256i nibble_bits = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2,
                                                 3, 1, 2, 2, 3, 2, 3, 3, 4);
    std::size_t m = 0;
    for (int k = 0; k < r.n; ++k) {
        std::size_t i = std::max(r.from[k], from), b = std::min(r.to[k], to);
        for (; vector && i + 4 <= b; i += 4) {
            const std::size_t at = i * width;
            std::uint64_t e0, e1, e2, e3;
            std::memcpy(&e0, s.entries + at / 8, 8);
            std::memcpy(&e1, s.entries + (at + width) / 8, 8);
            std::memcpy(&e2, s.entries + (at + 2 * width) / 8, 8);
            std::memcpy(&e3, s.entries + (at + 3 * width) / 8, 8);
            __m256i v = _mm256_setr_epi64x(static_cast<std::int64_t>(e0), static_cast<std::int64_t>(e1),
                                           static_cast<std::int64_t>(e2), static_cast<std::int64_t>(e3));
            __m256i bits = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<std::int64_t>(at)), lane_bits);
            v = _mm256_srlv_epi64(v, _mm256_and_si256(bits, seven));
            v = _mm256_xor_si256(_mm256_and_si256(v, mask), qlow);
            __m256i low_nibbles = _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(v, nibble));
            __m256i high_nibbles = _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(_mm256_srli_epi64(v, 4), nibble));
            std::uint32_t bucket;
            std::memcpy(&bucket, r.bucket_distance + i, sizeof(bucket));
            __m256i d = _mm256_add_epi64(_mm256_sad_epu8(_mm256_add_epi8(low_nibbles, high_nibbles), zero),
                                         _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(static_cast<int>(bucket))));
            unsigned over = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(d, limit))));
            for (unsigned hit = ~over & 0xfu; hit != 0; hit &= hit - 1)
                out[m++] = static_cast<std::uint16_t>(i + __builtin_ctz(hit));
        }
        m += scan_entries(s, r, i, b, radius, out + m);
    }
    return m;
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

std::size_t near_segment(const BucketSweep &s, std::size_t from, std::size_t to, std::size_t j, int radius,
                         std::uint16_t *out, SweepForm form) noexcept {
    // (A form this CPU lacks runs as the best it has: its instructions would trap.)
    if (!sweep_form_supported(form)) form = best_sweep_form();
    switch (form) {
#ifdef SIMHASH_X86_DISPATCH
        case SweepForm::avx512:
            return near_avx512(s, from, to, j, radius, out);
        case SweepForm::avx2:
            return near_avx2(s, from, to, j, radius, out);
        case SweepForm::popcnt:
            return near_popcnt(s, from, to, j, radius, out);
#endif
        default:
            return near_portable(s, from, to, j, radius, out);
    }
}

}  // namespace

bool sweep_form_supported(SweepForm form) noexcept {
#ifdef SIMHASH_X86_DISPATCH
    if (form == SweepForm::avx512) return cpu_has_avx512_popcount();
    if (form == SweepForm::avx2) return cpu_has_avx2() && cpu_has_popcnt();
    if (form == SweepForm::popcnt) return cpu_has_popcnt();
#endif
    return form == SweepForm::portable;
}

SweepForm best_sweep_form() noexcept {
    static const SweepForm best = [] {
        for (SweepForm f : {SweepForm::avx512, SweepForm::avx2, SweepForm::popcnt})
            if (sweep_form_supported(f)) return f;
        return SweepForm::portable;
    }();
    return best;
}

PackedHeader packed_header(const std::uint8_t *area) noexcept {
    PackedHeader h;
    std::uint16_t count, bytes, first_bucket, buckets;
    std::memcpy(&count, area, 2);
    std::memcpy(&bytes, area + 2, 2);
    h.count = count;
    h.bytes = bytes;
    h.prefix_len = area[4];
    h.block_bits = area[5];
    h.offset_bits = area[6];
    h.bucket_bits = area[7];
    std::memcpy(&h.prefix, area + 8, 8);
    std::memcpy(&h.base_block, area + 16, 4);
    std::memcpy(&first_bucket, area + 20, 2);
    std::memcpy(&buckets, area + 22, 2);
    h.first_bucket = first_bucket;
    h.buckets = buckets;
    std::memcpy(&h.keys_and, area + kSummaryOffset, 8);
    std::memcpy(&h.keys_or, area + kSummaryOffset + 8, 8);
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
    return plan_segment(n_, min_key_, max_key_, bit_width(max_block_ - min_block_), bit_width(max_offset_)).bytes;
}

bool PackSizer::fits_with(const EntryKey &e, std::size_t limit) noexcept {
    PackSizer s = *this;
    s.add(e);
    if (s.n_ > kMaxPackedEntries) return false;
    int block_bits = bit_width(s.max_block_ - s.min_block_), offset_bits = bit_width(s.max_offset_);
    // Any bucket width that fits proves the smallest fits: try last time's first.
    if (plan_with(s.n_, s.min_key_, s.max_key_, block_bits, offset_bits, bucket_hint_).bytes <= limit) return true;
    PackedHeader best = plan_segment(s.n_, s.min_key_, s.max_key_, block_bits, offset_bits);
    bucket_hint_ = best.bucket_bits;
    return best.bytes <= limit;
}

std::size_t leaf_write(const EntryKey *packed, std::size_t np, const EntryKey *tail, std::size_t nt,
                       std::uint8_t *area) noexcept {
    std::uint32_t base = np == 0 ? 0 : packed[0].block, top = base;
    std::uint16_t max_offset = 0;
    std::uint64_t keys_and = np + nt == 0 ? 0 : ~std::uint64_t{0}, keys_or = 0;
    for (std::size_t i = 0; i < np; ++i) {
        base = std::min(base, packed[i].block);
        top = std::max(top, packed[i].block);
        max_offset = std::max(max_offset, packed[i].offset);
        keys_and &= packed[i].key;
        keys_or |= packed[i].key;
    }
    for (std::size_t i = 0; i < nt; ++i) {
        keys_and &= tail[i].key;
        keys_or |= tail[i].key;
    }
    PackedHeader h = plan_segment(np, np == 0 ? 0 : packed[0].key, np == 0 ? 0 : packed[np - 1].key,
                                  bit_width(top - base), bit_width(max_offset));
    h.base_block = base;

    std::uint16_t count16 = static_cast<std::uint16_t>(np), bytes16 = static_cast<std::uint16_t>(h.bytes);
    std::uint16_t first16 = static_cast<std::uint16_t>(h.first_bucket);
    std::uint16_t buckets16 = static_cast<std::uint16_t>(h.buckets);
    std::memcpy(area, &count16, 2);
    std::memcpy(area + 2, &bytes16, 2);
    area[4] = static_cast<std::uint8_t>(h.prefix_len);
    area[5] = static_cast<std::uint8_t>(h.block_bits);
    area[6] = static_cast<std::uint8_t>(h.offset_bits);
    area[7] = static_cast<std::uint8_t>(h.bucket_bits);
    std::memcpy(area + 8, &h.prefix, 8);
    std::memcpy(area + 16, &base, 4);
    std::memcpy(area + 20, &first16, 2);
    std::memcpy(area + 22, &buckets16, 2);
    std::memcpy(area + kSummaryOffset, &keys_and, 8);
    std::memcpy(area + kSummaryOffset + 8, &keys_or, 8);

    std::uint8_t *directory = area + kPackedHeaderSize;
    std::uint8_t *entries = directory + h.directory_bytes();
    std::memset(directory, 0, h.bytes - kPackedHeaderSize);
    // Bucket j > 0 starts at the first entry whose bucket is j or more.
    std::size_t i = 0;
    for (std::uint32_t j = 1; j < h.buckets; ++j) {
        while (i < np && bucket_bits_of(packed[i].key, h.suffix_bits(), h.bucket_bits) - h.first_bucket < j) ++i;
        store_bits(directory, h.directory_bytes(), (j - 1) * h.directory_bits(), i);
    }
    std::size_t end = h.bytes - kPackedHeaderSize - h.directory_bytes();
    std::uint64_t mask = low_mask(h.low_bits());
    for (std::size_t k = 0; k < np; ++k) {
        std::uint64_t rest = (packed[k].block - base) | (std::uint64_t{packed[k].offset} << h.block_bits);
        u128 v = (packed[k].key & mask) | (static_cast<u128>(rest) << h.low_bits());
        store_bits(entries, end, k * h.entry_bits(), v);
    }
    for (std::size_t k = 0; k < nt; ++k) leaf_put(area + h.bytes, k, tail[k]);
    return h.bytes + nt * kLeafEntrySize;
}

bool leaf_summarize_append(std::uint8_t *area, std::size_t bytes, std::uint64_t key) noexcept {
    PackedHeader h = packed_header(area);
    bool empty = h.count == 0 && bytes == h.bytes;
    std::uint64_t keys_and = empty ? key : h.keys_and & key, keys_or = empty ? key : h.keys_or | key;
    if (keys_and == h.keys_and && keys_or == h.keys_or) return false;
    std::memcpy(area + kSummaryOffset, &keys_and, 8);
    std::memcpy(area + kSummaryOffset + 8, &keys_or, 8);
    return true;
}

Leaf::Leaf(const std::uint8_t *area, std::size_t bytes) noexcept : area_(area), h_(packed_header(area)) {
    entries_ = area + kPackedHeaderSize + h_.directory_bytes();
    tail_n_ = (bytes - h_.bytes) / kLeafEntrySize;
    suffix_mask_ = low_mask(h_.suffix_bits());
    low_mask_ = low_mask(h_.low_bits());
}

std::size_t Leaf::bucket_start(std::size_t j) const noexcept {
    if (j == 0) return 0;
    if (j >= h_.buckets) return h_.count;
    // (Clamped: a damaged directory must not send a reader past the segment.)
    return std::min<std::size_t>(directory_start(area_ + kPackedHeaderSize, h_.directory_bits(), j), h_.count);
}

std::size_t Leaf::bucket_of(std::size_t i, std::size_t from_bucket) const noexcept {
    // The last bucket starting at or before i (empty buckets start where the next does).
    if (i == 0) return 0;  // a sweep's start: no directory reads before the entries'
    std::size_t lo = from_bucket, hi = h_.buckets;
    while (hi - lo > 1) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (bucket_start(mid) <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

std::uint64_t Leaf::low_key(std::size_t i) const noexcept {
    return static_cast<std::uint64_t>(load_bits(entries_, i * h_.entry_bits())) & low_mask_;
}

EntryKey Leaf::decode(std::size_t i, std::size_t bucket) const noexcept {
    u128 v = load_bits(entries_, i * h_.entry_bits());
    std::uint64_t rest = static_cast<std::uint64_t>(v >> h_.low_bits());
    EntryKey e;
    e.key = h_.prefix | (static_cast<std::uint64_t>(v) & low_mask_);
    if (h_.bucket_bits > 0) e.key |= (std::uint64_t{h_.first_bucket} + bucket) << h_.low_bits();
    e.block = h_.base_block + static_cast<std::uint32_t>(rest & low_mask(h_.block_bits));
    e.offset = static_cast<std::uint16_t>((rest >> h_.block_bits) & low_mask(h_.offset_bits));
    return e;
}

EntryKey Leaf::get(std::size_t i) const noexcept {
    if (i >= h_.count) return leaf_get(area_ + h_.bytes, i - h_.count);
    return decode(i, h_.bucket_bits > 0 ? bucket_of(i) : 0);
}

EntryKey Leaf::get(std::size_t i, std::size_t *cursor) const noexcept {
    if (i >= h_.count || h_.bucket_bits == 0) return get(i);
    if (bucket_start(*cursor + 1) <= i) *cursor = bucket_of(i, *cursor + 1);
    return decode(i, *cursor);
}

Leaf::Span Leaf::bucket_span(std::uint64_t key) const noexcept {
    std::uint64_t pmask = ~suffix_mask_;
    if ((key & pmask) != h_.prefix) return (key & pmask) < h_.prefix ? Span{0, 0, 0} : Span{h_.count, h_.count, 0};
    std::uint32_t b = bucket_bits_of(key, h_.suffix_bits(), h_.bucket_bits);
    if (b < h_.first_bucket) return {0, 0, 0};
    if (b - h_.first_bucket >= h_.buckets) return {h_.count, h_.count, 0};
    std::size_t j = b - h_.first_bucket;
    return {bucket_start(j), bucket_start(j + 1), j};
}

std::size_t Leaf::lower_bound(std::uint64_t key) const noexcept {
    Span span = bucket_span(key);
    std::uint64_t want = key & low_mask_;
    std::size_t lo = span.from, hi = span.to;
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (low_key(mid) < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

std::size_t Leaf::upper_bound(std::uint64_t key) const noexcept {
    return key == ~std::uint64_t{0} ? h_.count : lower_bound(key + 1);
}

void Leaf::prefetch(std::uint64_t lo, std::uint64_t hi) const noexcept {
    if (lo > hi) return;
    std::size_t from = bucket_span(lo).from, to = bucket_span(hi).to;
    const std::uint8_t *first = entries_ + from * h_.entry_bits() / 8;
    const std::uint8_t *last = from < to ? entries_ + (to * h_.entry_bits() + 7) / 8 : first;
    for (const std::uint8_t *a = first; a < last; a += 64) __builtin_prefetch(a);
    for (std::size_t off = 0; off < tail_n_ * kLeafEntrySize; off += 64) __builtin_prefetch(area_ + h_.bytes + off);
}

std::size_t Leaf::near(std::uint64_t lo, std::uint64_t hi, std::uint64_t qkey, int radius, std::uint16_t *out,
                       SweepForm form) const noexcept {
    std::size_t m = 0;
    int floor = h_.distance_floor(qkey);
    if (lo > hi || radius < 0 || size() == 0 || floor > radius) return 0;
    // Every key has the bits the leaf's keys all share, so the query's
    // differences there (the floor) are the same for each: count them once
    // and search the other bits with what remains of the radius. Where keys
    // crowd behind a prefix, some shared bits lie in each entry's own bits,
    // whose differences the bucket sweep would otherwise see only entry by
    // entry: counted first, they narrow the buckets it reads.
    std::uint64_t shared = summary_shared_bits(h_.keys_and, h_.keys_or);
    qkey = (qkey & ~shared) | (h_.keys_and & shared);
    radius -= floor;
    int prefix_distance = __builtin_popcountll((h_.prefix ^ qkey) & ~suffix_mask_);
    if (h_.count > 0 && prefix_distance <= radius) {
        std::size_t from = lower_bound(lo), to = upper_bound(hi);
        if (from < to) {
            BucketSweep sweep{area_ + kPackedHeaderSize, entries_, h_.directory_bits(), h_.entry_bits(),
                              h_.first_bucket, h_.buckets, h_.count, low_mask_, qkey & low_mask_,
                              bucket_bits_of(qkey, h_.suffix_bits(), h_.bucket_bits)};
            m = near_segment(sweep, from, to, h_.bucket_bits > 0 ? bucket_of(from) : 0, radius - prefix_distance, out,
                                 form);
        }
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
    // The segment is sorted by whole entries and e.key's entries all lie in
    // its bucket: one binary search there. (A scan of the entries sharing
    // e.key made each index-only recheck in a crowd of one fingerprint
    // linear in the crowd: 88% of an index-only scan on PEP fingerprints.)
    Span span = bucket_span(e.key);
    std::size_t lo = span.from, hi = span.to;
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (key_less(decode(mid, span.bucket), e))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < span.to && compare_keys(decode(lo, span.bucket), e) == 0) return true;
    for (std::size_t j = 0; j < tail_n_; ++j)
        if (compare_keys(leaf_get(area_ + h_.bytes, j), e) == 0) return true;
    return false;
}

std::size_t Leaf::unpack(EntryKey *out) const noexcept {
    for (std::size_t j = 0, i = 0; j < h_.buckets; ++j)
        for (std::size_t end = bucket_start(j + 1); i < end; ++i) out[i] = decode(i, j);
    for (std::size_t j = 0; j < tail_n_; ++j) out[h_.count + j] = leaf_get(area_ + h_.bytes, j);
    return size();
}

const char *leaf_header_problem(const std::uint8_t *area, std::size_t bytes) noexcept {
    if (bytes < kPackedHeaderSize) return "leaf shorter than its header";
    PackedHeader h = packed_header(area);
    if (h.prefix_len > 64 || h.block_bits > 32 || h.offset_bits > 16 || h.bucket_bits > kMaxBucketBits ||
        h.bucket_bits > h.suffix_bits())
        return "packed header widths out of range";
    if (h.count > kMaxPackedEntries) return "too many packed entries";
    if (h.buckets == 0 || h.first_bucket + std::uint64_t{h.buckets} > (std::uint64_t{1} << h.bucket_bits))
        return "packed bucket range out of range";
    if (h.bytes != segment_bytes(h)) return "packed length disagrees with count and widths";
    if (h.bytes > bytes || (bytes - h.bytes) % kLeafEntrySize != 0) return "packed length disagrees with the leaf's";
    // Every key of the segment has the prefix: the AND has no other bits
    // there, the OR all of its bits (the tail's keys may lie outside it).
    std::uint64_t pmask = high_mask(h.prefix_len);
    if (bytes == h.bytes && h.count == 0 ? (h.keys_and | h.keys_or) != 0 : (h.keys_and & ~h.keys_or) != 0)
        return "packed key summary inconsistent";
    if (h.count > 0 && ((h.keys_and & pmask & ~h.prefix) != 0 || (h.prefix & pmask & ~h.keys_or) != 0))
        return "packed key summary disagrees with the prefix";
    return nullptr;
}

const char *leaf_check(const std::uint8_t *area, std::size_t bytes, const EntryKey &low, bool has_high,
                       const EntryKey &high, std::size_t *bad) noexcept {
    *bad = 0;
    if (const char *what = leaf_header_problem(area, bytes)) return what;
    PackedHeader h = packed_header(area);
    if ((h.prefix & low_mask(h.suffix_bits())) != 0) return "packed prefix has bits below its length";
    Leaf leaf(area, bytes);
    // (The directory as stored: bucket_start clamps it.)
    auto start = [&](std::size_t j) -> std::size_t {
        if (j == 0) return 0;
        if (j >= h.buckets) return h.count;
        return directory_start(area + kPackedHeaderSize, h.directory_bits(), j);
    };
    for (std::size_t j = 1; j <= h.buckets; ++j)
        if (start(j) < start(j - 1) || start(j) > h.count) return "packed bucket directory out of order";
    EntryKey prev{};
    std::uint64_t keys_and = leaf.size() == 0 ? 0 : ~std::uint64_t{0}, keys_or = 0;
    for (std::size_t j = 0, i = 0; j < h.buckets; ++j) {
        for (std::size_t end = leaf.bucket_start(j + 1); i < end; ++i) {
            *bad = i;
            u128 v = load_bits(leaf.entries_, i * h.entry_bits());
            std::uint64_t delta = static_cast<std::uint64_t>(v >> h.low_bits()) & low_mask(h.block_bits);
            if (std::uint64_t{h.base_block} + delta > std::numeric_limits<std::uint32_t>::max())
                return "packed block past 2^32 - 1";
            EntryKey e = leaf.decode(i, j);
            if (i > 0 && !key_less(prev, e)) return "packed entries out of order";
            if (key_less(e, low) || (has_high && !key_less(e, high))) return "leaf key out of range";
            prev = e;
            keys_and &= e.key;
            keys_or |= e.key;
        }
    }
    for (std::size_t i = h.count; i < leaf.size(); ++i) {
        *bad = i;
        EntryKey e = leaf.get(i);
        if (key_less(e, low) || (has_high && !key_less(e, high))) return "leaf key out of range";
        keys_and &= e.key;
        keys_or |= e.key;
    }
    *bad = 0;
    if (keys_and != h.keys_and || keys_or != h.keys_or) return "packed key summary disagrees with the keys";
    return nullptr;
}

namespace {

// Both halves of the sorted `all` fully packed, split at the point nearest
// the median where each fits `limit`; false when there is none.
bool split_packed(const EntryKey *all, std::size_t n, std::size_t limit, std::size_t *at) noexcept {
    // The longest prefix that fits, and the longest suffix that fits.
    PackSizer left, right;
    std::size_t left_max = 0, right_min = n;
    while (left_max < n && left.fits_with(all[left_max], limit)) left.add(all[left_max++]);
    while (right_min > 0 && right.fits_with(all[right_min - 1], limit)) right.add(all[--right_min]);
    std::size_t lo = std::max<std::size_t>(1, right_min), hi = std::min(n - 1, left_max);
    if (lo > hi) return false;
    *at = std::clamp(n / 2, lo, hi);
    return true;
}

}  // namespace

void merge_segment_and_tail(EntryKey *entries, std::size_t np, std::size_t n, EntryKey *out) noexcept {
    std::sort(entries + np, entries + n, KeyLess());
    std::merge(entries, entries + np, entries + np, entries + n, out, KeyLess());
}

bool leaf_split(const std::uint8_t *area, std::size_t bytes, std::size_t limit, std::size_t capacity,
                EntryKey *scratch, std::uint8_t *left, std::uint8_t *right, LeafSplit *out) noexcept {
    Leaf leaf(area, bytes);
    std::size_t n = leaf.unpack(scratch), np = leaf.packed_count();
    if (n < 2) return false;
    EntryKey *seg = scratch, *tail = scratch + np, *all = scratch + n;
    merge_segment_and_tail(scratch, np, n, all);
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
