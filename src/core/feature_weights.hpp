// Corpus-aware feature weights: tf x idf from document-frequency statistics,
// and keyword selection (keep the N heaviest features), as yanyiwu/simhash does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "error.hpp"
#include "vote.hpp"

namespace simhash {

// One row of a document-frequency table: how many documents hold the feature.
struct DfEntry {
    std::uint64_t hash;
    std::uint64_t df;
};

// Sorts entries by hash and folds duplicate hashes into one (their df summed);
// returns the new count. The glue loads a table into plain memory, then calls
// this. `interrupted` (may be null) is asked every 65,536 comparisons: tens of
// millions of entries take seconds; cancelled, the entries are left unusable.
std::size_t sort_df_entries(DfEntry *entries, std::size_t count, InterruptCheck interrupted = nullptr);

// The most bits of a document-frequency table's radix guide: 2^24 slots, 64 MB.
constexpr int kDfGuideBits = 24;

// A read-only view of sorted entries plus the corpus' document count N, and
// optionally a radix guide to their hashes (radix_guide.hpp, at most
// kDfGuideBits), so a lookup searches about one entry instead of the whole
// array. The view owns nothing and has no
// destructor, so the glue may keep it in per-query memory.
//
// idf(feature) = ln(1 + N / df): always positive, so a feature in every document
// still counts a little (ln 2), and the rarest count most. A feature the table has
// never seen (or df = 0) is weighed as if df = 1: ln(1 + N). With N = 0 every idf
// is ln 1 = 0 and the fingerprint of any document is 0.
class DocumentFrequencies {
public:
    DocumentFrequencies(const DfEntry *sorted, std::size_t count, std::uint64_t documents,
                        const std::uint32_t *guide = nullptr, int bits = 0) noexcept
        : entries_(sorted), count_(count), documents_(documents), guide_(guide), bits_(bits) {}

    // df of a feature, 0 when absent.
    std::uint64_t df(std::uint64_t hash) const noexcept;
    FixedWeight idf(std::uint64_t hash) const;
    std::uint64_t documents() const noexcept { return documents_; }

private:
    const DfEntry *entries_;
    std::size_t count_;
    std::uint64_t documents_;
    const std::uint32_t *guide_;  // entries beyond 2^32 - 1 cannot be guided (the glue refuses them)
    int bits_;
};

// weight x idf on the fixed-point grid. Throws Error(limit_exceeded) beyond the
// largest weight the vote accepts (only for absurd term counts).
FixedWeight scale_weight(FixedWeight weight, FixedWeight idf);

struct WeightedFeature {
    std::uint64_t hash;
    FixedWeight weight;
};

// Keeps the n heaviest features, in their original order. Ties are broken by the
// smaller hash (features are distinct by hash), so the choice is deterministic.
// n = 0 keeps everything.
void keep_top_n(std::vector<WeightedFeature> &features, std::size_t n);

// The rule for choosing N from a document's length in characters (yanyiwu/simhash
// issue 31): max(16, floor(2 sqrt(characters))). A vocabulary grows like the
// square root of the text (Heaps' law), and on the PEP revisions this N keeps
// tf x idf within a point of all features' recall (docs/weighting.md). Throws
// Error(invalid_argument) for a negative length; capped at 2^31 - 1.
constexpr int kMinTopN = 16;
constexpr double kTopNPerRootCharacter = 2.0;
int top_n_for_length(std::int64_t characters);

}  // namespace simhash
