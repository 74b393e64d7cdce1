// All pairs of rows whose fingerprints are within k bits, and the clusters
// (connected components) they form: the batch mode of Manku et al.
//
// Rows are numbered 0..n-1 in input order. Identical fingerprints are grouped
// first, so the table sweeps see each distinct fingerprint once: a fingerprint
// repeated r times costs one entry per table, and its r(r-1)/2 pairs (and its
// pairs with neighbours) are produced by expanding groups, i.e. work beyond the
// sweeps is proportional to the output itself. Every pair of rows is reported,
// however many rows share a fingerprint.
//
// Memory: the row grouping sorts 16-byte (fingerprint, row) entries with a
// scratch copy (32 bytes per row) and keeps 4 bytes per row plus 12 per
// distinct fingerprint; then tables are processed one at a time, each a
// 16-byte (permuted fingerprint, index) entry per distinct fingerprint plus a
// scratch copy for the radix sort (32 bytes per distinct fingerprint). Peak:
// about 32 bytes per row + 44 bytes per distinct fingerprint, whatever k.
#pragma once
#include <cstddef>
#include <cstdint>

#include "error.hpp"

namespace simhash {

// Rows a single call accepts: row numbers are 32-bit.
constexpr std::size_t kMaxNearPairRows = 0xFFFFFFFEu;

struct NearPair {
    std::uint32_t a;  // a < b
    std::uint32_t b;
    int distance;
};

struct NearPairsOptions {
    int k = 3;       // 0..64
    int blocks = 0;  // the block layout (see BlockLayout); 0 chooses by cost
    InterruptCheck interrupted = nullptr;
    void *context = nullptr;
    // Called with batches of pairs (find_near_pairs only); may throw to stop.
    void (*emit)(void *context, const NearPair *pairs, std::size_t count) = nullptr;
    // Called after each table's sweep with (tables done, tables); may throw.
    void (*progress)(void *context, std::size_t done, std::size_t tables) = nullptr;
    // sweep_near_pair_run only, for callers that want the clusters: report
    // just enough pairs to connect what every pair connects (a group of r
    // identical values as r - 1 pairs, two near groups as one), so that a
    // fingerprint shared by many rows costs its rows, not their square.
    bool spanning = false;
};

// Reports every pair of rows within options.k bits once, in no particular order.
void find_near_pairs(const std::uint64_t *fingerprints, std::size_t n, const NearPairsOptions &options);

// Writes, for each row, the first row (lowest number) of its cluster and the
// number of rows in the cluster; a row with no neighbour is its own cluster of 1.
void find_clusters(const std::uint64_t *fingerprints, std::size_t n, const NearPairsOptions &options,
                   std::uint32_t *representative, std::uint32_t *cluster_size);

// Streaming form of the search, for inputs that do not fit in memory (the
// caller sorts externally). For each table t of a layout, the caller sorts one
// entry per row, (layout.permute(t, fingerprint), row), by value and passes
// every run of entries sharing the table's prefix (layout.prefix_bits(t) top
// bits). Each call reports the run's pairs within options.k that table t is
// responsible for (BlockLayout::reports_pair), so over all tables every pair
// is reported exactly once, as find_near_pairs does. With layout == nullptr
// (k = 0) a run is a group of identical fingerprints, passed once.
// Identical fingerprints are grouped inside the run: pairs of distinct values
// are checked once each, rows are expanded only into the output (or, with
// options.spanning, not expanded).
struct RunEntry {
    std::uint64_t value;
    std::uint32_t row;
};
class BlockLayout;
void sweep_near_pair_run(const BlockLayout *layout, std::size_t t, const RunEntry *entries, std::size_t count,
                         const NearPairsOptions &options);

}  // namespace simhash
