// From a document's text to its features and its fingerprint (scheme
// "simhash-text-v1", specified in docs/algorithm.md).
//
// Pipeline: optional HTML stripping -> tokens (Unicode words with case folding,
// or character n-grams inside words) -> optional stop-word removal (words only)
// -> shingles of `shingle` consecutive tokens joined by one space -> XXH3-64 of
// each shingle's UTF-8 bytes with `seed` -> weighted vote.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
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

    Tokens tokens = Tokens::words;
    int shingle = kDefaultWordShingle;      // tokens per feature, 1..kMaxShingle
    Weighting weighting = Weighting::tf;
    const StopWords *stop_words = nullptr;  // not owned; nullptr: keep every word
    bool html = false;
    std::uint64_t seed = 0;
};

constexpr int kMaxShingle = 16;

// Throws Error(invalid_argument) for options out of range.
void validate(const TextOptions &options);

// Input must be UTF-8; invalid sequences act as separators. `interrupted` is
// polled every few kilobytes; when it returns true, Error(cancelled) is thrown.
std::uint64_t fingerprint_text(std::string_view utf8, const TextOptions &options, InterruptCheck interrupted);

// What a document contributes: one row per distinct feature, in order of first
// occurrence, with the weight the vote gave it.
struct FeatureRow {
    std::string feature;
    std::uint64_t hash;
    FixedWeight weight;
};
std::vector<FeatureRow> explain_text(std::string_view utf8, const TextOptions &options, InterruptCheck interrupted);

}  // namespace simhash
