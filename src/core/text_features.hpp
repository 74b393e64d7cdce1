// From a document's text to its features and its fingerprint (scheme
// "simhash-text-v1", specified in docs/algorithm.md).
//
// Pipeline: optional HTML stripping -> tokens (Unicode words with case folding,
// or character n-grams inside words) -> optional stop-word removal (words only)
// -> shingles of `shingle` consecutive tokens joined by one space -> XXH3-64 of
// each shingle's UTF-8 bytes with `seed` (or jenkins, unseeded) -> weights
// (tf, binary or log_tf, optionally x idf) -> optionally the top_n heaviest
// -> weighted vote.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "feature_weights.hpp"
#include "stop_words.hpp"
#include "vote.hpp"

namespace simhash {

// Defaults chosen by measurement on the PEP revisions (docs/defaults.md): words,
// unigrams, term frequency, no stop words; character n-grams default to n = 3.
constexpr int kDefaultWordShingle = 1;
constexpr int kDefaultCharShingle = 3;

struct TextOptions {
    enum class Tokens { words, chars };
    enum class Weighting { tf, binary, log_tf };
    enum class Hash { xxh3, jenkins };

    Tokens tokens = Tokens::words;
    int shingle = kDefaultWordShingle;      // tokens per feature, 1..kMaxShingle
    Weighting weighting = Weighting::tf;
    const StopWords *stop_words = nullptr;  // not owned; nullptr: keep every word
    bool html = false;
    std::uint64_t seed = 0;                 // xxh3 only: jenkins requires 0
    Hash hash = Hash::xxh3;
    int top_n = 0;                          // keep the N heaviest features; 0: all
    const DocumentFrequencies *idf = nullptr;  // not owned; nullptr: no idf factor
};

constexpr int kMaxShingle = 16;

// Throws Error(invalid_argument) for options out of range.
void validate(const TextOptions &options);

// Input must be UTF-8; invalid sequences act as separators. `interrupted` is
// polled every few kilobytes; when it returns true, Error(cancelled) is thrown.
std::uint64_t fingerprint_text(std::string_view utf8, const TextOptions &options, InterruptCheck interrupted);

// What a document contributes: one row per distinct feature that votes (with
// top_n, only the kept ones), in order of first occurrence, with its weight.
struct FeatureRow {
    std::string feature;
    std::uint64_t hash;
    FixedWeight weight;
};
std::vector<FeatureRow> explain_text(std::string_view utf8, const TextOptions &options, InterruptCheck interrupted);

// The distinct feature hashes of a document (weighting, top_n and idf ignored):
// what one document adds to document-frequency statistics. Unordered.
std::vector<std::uint64_t> distinct_feature_hashes(std::string_view utf8, const TextOptions &options,
                                                   InterruptCheck interrupted);

}  // namespace simhash
