// Measures candidate text options on the PEP revisions (issue 2: "the default
// options are chosen by measurement"). For each candidate: the share of
// consecutive revisions whose fingerprints are within 3 bits, per edit-size
// bucket of the difflib line ratio, and the share of pairs of versions of
// different PEPs within 3 bits (false matches, every such pair counted).
//
// usage: evaluate_defaults <dir holding versions/> <consecutive_revision_pairs.tsv> <english.stop>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "pep_corpus.hpp"
#include "text_features.hpp"

namespace fs = std::filesystem;
using simhash::TextOptions;

namespace {

constexpr int kRadius = 3;


struct Candidate {
    std::string name;
    TextOptions options;
};

const char *weighting_name(TextOptions::Weighting w) {
    switch (w) {
        case TextOptions::Weighting::tf: return "tf";
        case TextOptions::Weighting::binary: return "binary";
        case TextOptions::Weighting::log_tf: return "log_tf";
    }
    return "?";
}

std::uint64_t popcount(std::uint64_t x) { return static_cast<std::uint64_t>(__builtin_popcountll(x)); }

}  // namespace

int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s <dir holding versions/> <consecutive_revision_pairs.tsv> <english.stop>\n", argv[0]);
        return 2;
    }
    const fs::path root = argv[1];

    const pep_corpus::Corpus corpus = pep_corpus::load(root, argv[2]);
    const auto &versions = corpus.versions;
    const auto &pairs = corpus.pairs;
    const std::size_t bytes = corpus.bytes;
    std::size_t bucket_sizes[4] = {};
    for (const auto &p : pairs) ++bucket_sizes[p.bucket];

    std::vector<std::string> stop_list;
    {
        std::ifstream in(argv[3]);
        std::string w;
        while (in >> w) stop_list.push_back(w);
    }
    const simhash::StopWords stop(stop_list);

    std::vector<Candidate> candidates;
    for (auto w : {TextOptions::Weighting::tf, TextOptions::Weighting::binary, TextOptions::Weighting::log_tf}) {
        for (int n : {1, 2, 3}) {
            for (bool with_stop : {false, true}) {
                Candidate c;
                c.options.shingle = n;
                c.options.weighting = w;
                c.options.stop_words = with_stop ? &stop : nullptr;
                c.name = "words n=" + std::to_string(n) + " " + weighting_name(w) + (with_stop ? " stop" : "");
                candidates.push_back(c);
            }
        }
        for (int n : {3, 4, 5}) {
            Candidate c;
            c.options.tokens = TextOptions::Tokens::chars;
            c.options.shingle = n;
            c.options.weighting = w;
            c.name = "chars n=" + std::to_string(n) + " " + weighting_name(w);
            candidates.push_back(c);
        }
    }

    // Cross-PEP pairs, counted once each: versions are sorted by PEP, so the
    // versions of other PEPs after version i start at the next PEP's first.
    std::vector<std::size_t> next_pep(versions.size());
    for (std::size_t i = versions.size(); i-- > 0;)
        next_pep[i] = (i + 1 == versions.size() || versions[i + 1].pep != versions[i].pep) ? i + 1 : next_pep[i + 1];
    std::size_t peps = 0;
    for (std::size_t i = 0; i < versions.size(); ++i) peps += next_pep[i] == i + 1;
    std::uint64_t cross_pairs = 0;
    for (std::size_t i = 0; i < versions.size(); ++i) cross_pairs += versions.size() - next_pep[i];

    std::printf("%zu versions of %zu PEPs (%.1f MB), %zu consecutive pairs (buckets: %zu / %zu / %zu / %zu), "
                "%llu pairs of versions of different PEPs, radius %d\n\n",
                versions.size(), peps, bytes / 1e6, pairs.size(),
                bucket_sizes[0], bucket_sizes[1], bucket_sizes[2], bucket_sizes[3],
                static_cast<unsigned long long>(cross_pairs), kRadius);
    std::printf("| options | ratio >= 0.99 | 0.95-0.99 | 0.8-0.95 | < 0.8 | all pairs | false matches |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);

    std::vector<std::uint64_t> fp(versions.size());
    for (const auto &c : candidates) {
        for (std::size_t i = 0; i < versions.size(); ++i) fp[i] = simhash::fingerprint_text(versions[i].text, c.options, nullptr);

        std::size_t within[4] = {}, within_all = 0;
        for (const auto &p : pairs) {
            if (popcount(fp[p.a] ^ fp[p.b]) <= kRadius) {
                ++within[p.bucket];
                ++within_all;
            }
        }
        std::uint64_t false_matches = 0;
        for (std::size_t i = 0; i < versions.size(); ++i) {
            const std::uint64_t x = fp[i];
            for (std::size_t j = next_pep[i]; j < versions.size(); ++j) false_matches += popcount(x ^ fp[j]) <= kRadius;
        }
        std::printf("| %s |", c.name.c_str());
        for (int b = 0; b < 4; ++b) std::printf(" %.1f%% |", 100.0 * within[b] / (bucket_sizes[b] ? bucket_sizes[b] : 1));
        std::printf(" %.1f%% | %.4f%% (%llu) |\n", 100.0 * within_all / (pairs.empty() ? 1 : pairs.size()),
                    100.0 * false_matches / (cross_pairs ? cross_pairs : 1), static_cast<unsigned long long>(false_matches));
        std::fflush(stdout);
    }
    return 0;
}
