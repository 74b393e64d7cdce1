// Measures corpus-aware weighting on the PEP revisions (issue 5), side by side
// with the foundation default (words, shingle 1, tf, xxh3): for each scheme, the
// share of consecutive revisions whose fingerprints are within 3 bits, per
// edit-size bucket of the difflib line ratio, and the share of pairs of versions
// of different PEPs within 3 bits (false matches).
//
// Document frequencies are counted over every version, as simhash_df_build
// would over a table holding them all.
//
// usage: evaluate_weighting <dir holding versions/> <consecutive_revision_pairs.tsv>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "feature_weights.hpp"
#include "pep_corpus.hpp"
#include "radix_guide.hpp"
#include "text_features.hpp"

namespace fs = std::filesystem;
using simhash::TextOptions;

namespace {

constexpr int kRadius = 3;


// A scheme: options for a version, given its text (top_n may depend on length).
struct Scheme {
    std::string name;
    std::function<TextOptions(const std::string &)> options;
};

int popcount(std::uint64_t x) { return __builtin_popcountll(x); }

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <dir holding versions/> <consecutive_revision_pairs.tsv>\n", argv[0]);
        return 2;
    }
    const fs::path root = argv[1];

    const pep_corpus::Corpus corpus = pep_corpus::load(root, argv[2]);
    const auto &versions = corpus.versions;
    const auto &pairs = corpus.pairs;
    std::size_t bucket_sizes[4] = {};
    for (const auto &p : pairs) ++bucket_sizes[p.bucket];

    // Document frequencies of word unigrams over every version (simhash_df_build).
    std::unordered_map<std::uint64_t, std::uint64_t> df_map;
    for (const auto &v : versions)
        for (std::uint64_t h : simhash::distinct_feature_hashes(v.text, TextOptions{}, nullptr)) ++df_map[h];
    std::vector<simhash::DfEntry> entries;
    for (const auto &[h, d] : df_map) entries.push_back(simhash::DfEntry{h, d});
    const std::size_t n_entries = simhash::sort_df_entries(entries.data(), entries.size());
    const int bits = simhash::radix_guide_bits(n_entries, simhash::kDfGuideBits);
    std::vector<std::uint32_t> directory((std::size_t{1} << bits) + 1);
    simhash::build_radix_guide(n_entries, bits, [&](std::size_t i) { return entries[i].hash; }, directory.data());
    const simhash::DocumentFrequencies df(entries.data(), n_entries, versions.size(), directory.data(), bits);

    const auto fixed_n = [](int n, bool idf, const simhash::DocumentFrequencies *d) {
        return [=](const std::string &) {
            TextOptions o;
            o.top_n = n;
            if (idf) o.idf = d;
            return o;
        };
    };
    std::vector<Scheme> schemes;
    schemes.push_back({"tf (foundation default)", fixed_n(0, false, nullptr)});
    schemes.push_back({"tf x idf", fixed_n(0, true, &df)});
    schemes.push_back({"log_tf x idf", [&](const std::string &) {
                           TextOptions o;
                           o.weighting = TextOptions::Weighting::log_tf;
                           o.idf = &df;
                           return o;
                       }});
    schemes.push_back({"tf, hash jenkins", [](const std::string &) {
                           TextOptions o;
                           o.hash = TextOptions::Hash::jenkins;
                           return o;
                       }});
    for (int n : {16, 64, 256}) schemes.push_back({"tf, top_n " + std::to_string(n), fixed_n(n, false, nullptr)});
    for (int n : {16, 32, 64, 128, 256, 512})
        schemes.push_back({"tf x idf, top_n " + std::to_string(n), fixed_n(n, true, &df)});
    // N growing like the square root of the length, as the vocabulary does (Heaps' law).
    for (double k : {0.5, 1.0, 4.0}) {
        char name[96];
        std::snprintf(name, sizeof name, "tf x idf, top_n = max(16, %.1f x sqrt(characters))", k);
        schemes.push_back({name, [&df, k](const std::string &text) {
                               TextOptions o;
                               o.idf = &df;
                               o.top_n = std::max(16, static_cast<int>(k * std::sqrt(static_cast<double>(text.size()))));
                               return o;
                           }});
    }
    schemes.push_back({"tf x idf, top_n = simhash_top_n_for_length(characters) = max(16, 2 x sqrt(characters))", [&](const std::string &text) {
                           TextOptions o;
                           o.idf = &df;
                           o.top_n = simhash::top_n_for_length(static_cast<std::int64_t>(text.size()));
                           return o;
                       }});

    std::vector<std::size_t> next_pep(versions.size());
    for (std::size_t i = versions.size(); i-- > 0;)
        next_pep[i] = (i + 1 == versions.size() || versions[i + 1].pep != versions[i].pep) ? i + 1 : next_pep[i + 1];
    std::uint64_t cross_pairs = 0;
    for (std::size_t i = 0; i < versions.size(); ++i) cross_pairs += versions.size() - next_pep[i];

    std::printf("%zu versions, %zu consecutive pairs (buckets: %zu / %zu / %zu / %zu), %llu cross-PEP pairs, "
                "%zu distinct features in the df table, radius %d\n\n",
                versions.size(), pairs.size(), bucket_sizes[0], bucket_sizes[1], bucket_sizes[2], bucket_sizes[3],
                static_cast<unsigned long long>(cross_pairs), n_entries, kRadius);
    std::printf("| scheme | ratio >= 0.99 | 0.95-0.99 | 0.8-0.95 | < 0.8 | all pairs | false matches | s |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);

    // Vocabulary against length: the basis of the top_n rule.
    {
        double features = 0, roots = 0;
        for (const auto &v : versions) {
            features += static_cast<double>(simhash::distinct_feature_hashes(v.text, TextOptions{}, nullptr).size());
            roots += std::sqrt(static_cast<double>(v.text.size()));
        }
        std::printf("mean distinct word features per version %.0f, mean sqrt(characters) %.0f\n\n",
                    features / versions.size(), roots / versions.size());
    }

    struct Curve {
        std::string name;
        std::uint64_t pairs_within[65];
        std::uint64_t cross_within[65];
    };
    std::vector<Curve> curves;
    std::vector<std::uint64_t> fp(versions.size());
    for (const auto &s : schemes) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < versions.size(); ++i)
            fp[i] = simhash::fingerprint_text(versions[i].text, s.options(versions[i].text), nullptr);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::size_t within[4] = {}, within_all = 0;
        for (const auto &p : pairs) {
            if (popcount(fp[p.a] ^ fp[p.b]) <= kRadius) {
                ++within[p.bucket];
                ++within_all;
            }
        }
        Curve curve{s.name, {}, {}};
        for (const auto &p : pairs) ++curve.pairs_within[popcount(fp[p.a] ^ fp[p.b])];
        for (std::size_t i = 0; i < versions.size(); ++i)
            for (std::size_t j = next_pep[i]; j < versions.size(); ++j) ++curve.cross_within[popcount(fp[i] ^ fp[j])];
        for (int d = 1; d <= 64; ++d) {
            curve.pairs_within[d] += curve.pairs_within[d - 1];
            curve.cross_within[d] += curve.cross_within[d - 1];
        }
        const std::uint64_t false_matches = curve.cross_within[kRadius];
        curves.push_back(curve);
        std::printf("| %s |", s.name.c_str());
        for (int b = 0; b < 4; ++b) std::printf(" %.1f%% |", 100.0 * within[b] / (bucket_sizes[b] ? bucket_sizes[b] : 1));
        std::printf(" %.1f%% | %.4f%% (%llu) | %.1f |\n", 100.0 * within_all / (pairs.empty() ? 1 : pairs.size()),
                    100.0 * false_matches / (cross_pairs ? cross_pairs : 1),
                    static_cast<unsigned long long>(false_matches), seconds);
        std::fflush(stdout);
    }

    // The same schemes at other radii: recall of all consecutive pairs / false matches.
    std::printf("\n| scheme | k = 2 | k = 3 | k = 4 | k = 5 | k = 6 |\n|---|---|---|---|---|---|\n");
    for (const auto &c : curves) {
        std::printf("| %s |", c.name.c_str());
        for (int k = 2; k <= 6; ++k)
            std::printf(" %.1f%% / %.4f%% |", 100.0 * c.pairs_within[k] / pairs.size(),
                        100.0 * c.cross_within[k] / cross_pairs);
        std::printf("\n");
    }
    return 0;
}
