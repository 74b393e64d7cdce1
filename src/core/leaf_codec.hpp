// Leaf pages of the simhash index: a bit-packed, sorted segment followed by
// an append tail of plain 14-byte entries.
//
// The segment stores every entry in the same number of bits: the keys'
// common prefix once (their first and last key decide it), then for each
// entry the key's remaining bits, the heap block minus the segment's lowest
// block, and the offset, each in the fewest bits the segment needs. Fixed
// width gives random access, so a probe binary-searches the keys sharing its
// prefix and a sweep XORs suffixes only (the prefix distance is one constant
// per leaf).
//
// The next `bucket_bits` bits of each key after the prefix are not stored per
// entry either: a directory gives where each of their values (a bucket)
// starts, for the buckets between the first and the last key's. A leaf of n
// random keys spends ~log2(n) - 3 bits less per entry this way; the writer
// picks the bucket bits that make the leaf smallest (0: no directory). A
// probe narrows its binary search to one bucket, and a sweep skips buckets
// whose bits alone are too far from the query. At 1M random rows an entry
// takes ~8.8 bytes (the directory's share included) instead of 14.
//
// The header also keeps the AND and the OR of every key of the leaf, the
// tail's included: the bits all its keys share, wherever they lie in the
// key. Where rows share bits that trail a table's key (1M rows sharing a
// 40-bit prefix, a query with two of the first 16 flipped: in table 1 they
// come last), no prefix of the leaf tells the query is far, but these do, and
// the leaf's entries go unread. An append updates them first, in the rare
// case the new key changes them.
//
// The tail keeps an insert a small append; when it is full the leaf is
// repacked (or split) as a whole. Layout of the leaf's bytes:
//   header (kPackedHeaderSize) | directory: buckets - 1 starts of
//   directory_bits() bits | count entries of entry_bits() bits, LSB first
//   | tail entries (kLeafEntrySize each, unsorted)
// Reading an entry of the segment loads 16 bytes, so up to kLeafReadSlack
// bytes past the leaf's bytes must be readable (on a page, the special space).
#pragma once
#include <cstddef>
#include <cstdint>

#include "index_page.hpp"

namespace simhash::index {

constexpr std::size_t kPackedHeaderSize = 40;
// More buckets than this never pay for their directory on an 8 kB page.
constexpr int kMaxBucketBits = 12;
constexpr std::size_t kLeafReadSlack = 16;
// Bounds positions (uint16) and scratch arrays; a full page of distinct
// (key, TID) entries needs at least 12 bits each, so ~5,400 at most.
constexpr std::size_t kMaxPackedEntries = 8192;

struct PackedHeader {
    std::size_t count;
    std::size_t bytes;  // the header, the directory and the packed entries
    int prefix_len;     // bits shared by every key of the segment
    int block_bits;
    int offset_bits;
    int bucket_bits;       // key bits after the prefix kept in the directory
    std::uint64_t prefix;  // those bits, the rest zero
    std::uint32_t base_block;
    std::uint32_t first_bucket;  // the first key's bucket
    std::uint32_t buckets;       // from the first key's bucket to the last's
    std::uint64_t keys_and;      // bits set in every key of the leaf, the tail's too (0 when empty)
    std::uint64_t keys_or;       // bits set in some key of the leaf
    // Fewest bits in which a key of the leaf can differ from `key`: the bits
    // where every key agrees and `key` does not.
    int distance_floor(std::uint64_t key) const noexcept {
        return __builtin_popcountll((keys_and & ~key) | (~keys_or & key));
    }
    int suffix_bits() const noexcept { return 64 - prefix_len; }
    int low_bits() const noexcept { return suffix_bits() - bucket_bits; }  // the key bits each entry keeps
    int entry_bits() const noexcept { return low_bits() + block_bits + offset_bits; }
    int directory_bits() const noexcept { return 64 - __builtin_clzll(std::uint64_t{count} | 1); }
    std::size_t directory_bytes() const noexcept { return ((buckets - 1) * directory_bits() + 7) / 8; }
};

PackedHeader packed_header(const std::uint8_t *area) noexcept;

// The packed size of a set of entries, grown one entry at a time in any
// order (the build and the split choose where a leaf ends with it).
class PackSizer {
  public:
    void add(const EntryKey &e) noexcept;
    // Bytes of the segment holding what was added; huge above
    // kMaxPackedEntries, so that such a segment never fits.
    std::size_t bytes() const noexcept;
    // Whether the segment with `e` added would take at most `limit` bytes;
    // cheaper than bytes() when called entry after entry.
    bool fits_with(const EntryKey &e, std::size_t limit) noexcept;
    std::size_t count() const noexcept { return n_; }

  private:
    std::size_t n_ = 0;
    std::uint64_t min_key_ = 0, max_key_ = 0;
    std::uint32_t min_block_ = 0, max_block_ = 0;
    std::uint16_t max_offset_ = 0;
    int bucket_hint_ = 0;  // the bucket bits fits_with last found smallest
};

// Writes a leaf of the sorted entries `packed` (np) followed by the tail
// entries `tail` (nt, any order) to area; returns its byte length. Writes
// exactly that many bytes; `packed` must not overlap `area`.
std::size_t leaf_write(const EntryKey *packed, std::size_t np, const EntryKey *tail, std::size_t nt,
                       std::uint8_t *area) noexcept;
inline std::size_t leaf_init(std::uint8_t *area) noexcept { return leaf_write(nullptr, 0, nullptr, 0, area); }

// Folds `key` into the key summary of the leaf of `bytes` bytes at area,
// before the key is appended to its tail; returns whether the summary's bytes
// (kSummaryOffset, kSummarySize) changed, which the append must then log.
constexpr std::size_t kSummaryOffset = 24, kSummarySize = 16;
bool leaf_summarize_append(std::uint8_t *area, std::size_t bytes, std::uint64_t key) noexcept;

// The forms of near()'s loop over entries, the same positions each: the
// CPU's best by default, the others for tests to compare (a form the CPU
// lacks runs as the best one it has).
enum class SweepForm { portable, popcnt, avx2, avx512 };
inline constexpr SweepForm kSweepForms[] = {SweepForm::portable, SweepForm::popcnt, SweepForm::avx2, SweepForm::avx512};
SweepForm best_sweep_form() noexcept;
bool sweep_form_supported(SweepForm form) noexcept;

// A read view of a leaf's bytes; trusts the header (leaf_check first when the
// bytes are untrusted). Positions: the segment's entries first, sorted, then
// the tail's.
class Leaf {
  public:
    Leaf(const std::uint8_t *area, std::size_t bytes) noexcept;
    const PackedHeader &header() const noexcept { return h_; }
    std::size_t packed_count() const noexcept { return h_.count; }
    std::size_t tail_count() const noexcept { return tail_n_; }
    std::size_t size() const noexcept { return h_.count + tail_n_; }
    EntryKey get(std::size_t i) const noexcept;
    // The same, for ascending positions (near()'s): *cursor, 0 before the
    // first call, keeps the bucket found, so most calls read no directory
    // but the next bucket's start.
    EntryKey get(std::size_t i, std::size_t *cursor) const noexcept;
    // Segment positions of the first key >= key / > key.
    std::size_t lower_bound(std::uint64_t key) const noexcept;
    std::size_t upper_bound(std::uint64_t key) const noexcept;
    // Writes to out (room for size()) the positions, ascending, of the
    // entries with lo <= key <= hi within `radius` bits of qkey.
    std::size_t near(std::uint64_t lo, std::uint64_t hi, std::uint64_t qkey, int radius, std::uint16_t *out,
                     SweepForm form = best_sweep_form()) const noexcept;

    // Starts loading the lines near() would read for [lo, hi], located from
    // the directory alone (no entry is read): a probe of several tables
    // calls it on each table's leaf before reading any, so that their cache
    // misses overlap instead of following one another.
    void prefetch(std::uint64_t lo, std::uint64_t hi) const noexcept;
    bool contains(const EntryKey &e) const noexcept;
    // Every entry, in position order; returns size().
    std::size_t unpack(EntryKey *out) const noexcept;

  private:
    friend const char *leaf_check(const std::uint8_t *area, std::size_t bytes, const EntryKey &low, bool has_high,
                                  const EntryKey &high, std::size_t *bad) noexcept;
    // Segment positions of bucket j (0 .. buckets - 1): [start(j), start(j + 1)).
    std::size_t bucket_start(std::size_t j) const noexcept;
    // The segment positions of the bucket that would hold `key`, and that
    // bucket's index; an empty span at 0 or count() when the key sorts
    // before or after the segment.
    struct Span {
        std::size_t from, to, bucket;
    };
    Span bucket_span(std::uint64_t key) const noexcept;
    std::size_t bucket_of(std::size_t i, std::size_t from_bucket = 0) const noexcept;
    EntryKey decode(std::size_t i, std::size_t bucket) const noexcept;
    std::uint64_t low_key(std::size_t i) const noexcept;

    const std::uint8_t *area_;
    const std::uint8_t *entries_;
    PackedHeader h_;
    std::size_t tail_n_;
    std::uint64_t suffix_mask_;
    std::uint64_t low_mask_;
};

// What is wrong with the header of untrusted leaf bytes (widths out of
// range, more entries than a segment holds, buckets out of range, a length
// that disagrees with them or with the leaf's, a key summary whose AND has a
// bit its OR lacks or that contradicts the prefix), or nullptr: checked in
// constant time before a scan reads a leaf, so that a damaged one is reported
// instead of read past. A directory out of order is not caught here; readers
// clamp its positions to the segment.
const char *leaf_header_problem(const std::uint8_t *area, std::size_t bytes) noexcept;

// What is wrong with untrusted leaf bytes (header inconsistent with the
// length, widths out of range, a directory out of order, segment not
// strictly sorted, blocks past 2^32 - 1, an entry outside [low, high), a key
// summary other than the AND and OR of the keys), or nullptr. *bad: the
// position.
const char *leaf_check(const std::uint8_t *area, std::size_t bytes, const EntryKey &low, bool has_high,
                       const EntryKey &high, std::size_t *bad) noexcept;

// Entries [0, n) whose first np are sorted (an unpacked leaf: its segment,
// then its tail) written to `out` in KeyLess order. The tail is sorted alone
// and merged: O(n) for the short tail a repack sees, where sorting all n was
// O(n log n) and a tenth of an insert's CPU. Reorders the tail in place;
// `out` has room for n entries and does not overlap `entries`.
void merge_segment_and_tail(EntryKey *entries, std::size_t np, std::size_t n, EntryKey *out) noexcept;

// A full leaf split in two: both halves fully packed, at the point nearest
// the median where both fit in `limit` bytes; failing that (a tail key far
// from a dense segment widens every entry), each half keeps its share of the
// segment packed and of the tail as tail, which fits `capacity` whenever the
// leaf did. `scratch` has room for 2 * size() entries; `left`, `right` must
// not overlap `area`. Returns false when no split fits `capacity` (a
// corrupt or pathological leaf: the caller errors out, nothing written).
struct LeafSplit {
    EntryKey separator;  // left < separator <= right
    std::size_t left_bytes, right_bytes;
};
bool leaf_split(const std::uint8_t *area, std::size_t bytes, std::size_t limit, std::size_t capacity,
                EntryKey *scratch, std::uint8_t *left, std::uint8_t *right, LeafSplit *out) noexcept;

}  // namespace simhash::index
