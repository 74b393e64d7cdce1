// Sorting a table's entries for the index build, into (key, block, offset)
// order. One std::sort of 1M random keys was half a build's time; distributing
// the entries by the key's top 16 bits first (a counting pass and a scatter
// into scratch) leaves buckets of about n / 65536 entries to sort by
// comparison. Keys that share their top bits fall into few large buckets and
// cost the comparison sort plus the two passes, never much more.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "index_page.hpp"

namespace simhash::index {

constexpr int kSortBucketBits = 16;
constexpr std::size_t kSortBuckets = std::size_t{1} << kSortBucketBits;

// Sorts entries[0, n). scratch holds n entries, ends kSortBuckets + 1 counts.
// poll() is called every 65,536 entries and comparisons; it may raise or
// longjmp (the frames hold nothing with a destructor).
template <typename Poll>
void sort_entries(EntryKey *entries, std::size_t n, EntryKey *scratch, std::size_t *ends, Poll &&poll) {
    auto bucket = [](const EntryKey &e) { return static_cast<std::size_t>(e.key >> (64 - kSortBucketBits)); };
    std::fill(ends, ends + kSortBuckets + 1, std::size_t{0});
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFF) == 0) poll();
        ++ends[bucket(entries[i]) + 1];
    }
    // ends[b] is now where bucket b starts; the scatter moves it to where b ends.
    for (std::size_t b = 0; b < kSortBuckets; ++b) ends[b + 1] += ends[b];
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0xFFFF) == 0) poll();
        scratch[ends[bucket(entries[i])]++] = entries[i];
    }
    std::uint32_t compared = 0;
    auto less = [&](const EntryKey &a, const EntryKey &b) {
        if ((++compared & 0xFFFF) == 0) poll();
        return key_less(a, b);
    };
    std::size_t begin = 0;
    for (std::size_t b = 0; b < kSortBuckets; ++b) {
        if (ends[b] - begin > 1) std::sort(scratch + begin, scratch + ends[b], less);
        begin = ends[b];
    }
    if (n > 0) std::memcpy(entries, scratch, n * sizeof(EntryKey));
}

}  // namespace simhash::index
