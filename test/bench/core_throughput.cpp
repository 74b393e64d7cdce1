// Throughput of the pure C++ text pipeline on one core, outside PostgreSQL
// (issue 2 target: >= 300 MB/s for word features), over every PEP version.
// Side by side in one run: the tokenizer alone and XXH3-64 of the whole
// document, the floors under any fingerprint.
//
// MB/s are per second of this process's CPU time (one thread), which on a
// shared machine is closer to "one core" than wall time; both are printed.
//
// usage: core_throughput <dir holding versions/> [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "feature_hash.hpp"
#include "text_features.hpp"
#include "tokenizer.hpp"

namespace fs = std::filesystem;
using simhash::TextOptions;

namespace {

struct CountWords final : simhash::WordSink {
    std::uint64_t n = 0;
    void word(std::string_view w) override { n += w.size(); }
};

void measure(const char *name, const std::vector<std::string> &docs, std::size_t bytes, int rounds,
             const std::function<std::uint64_t(const std::string &)> &f) {
    std::uint64_t sink = 0;
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < rounds; ++r)
        for (const auto &d : docs) sink ^= f(d);
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double mb = static_cast<double>(bytes) * rounds / 1e6;
    std::printf("| %s | %.0f | %.0f | %016llx |\n", name, mb / cpu, mb / wall, static_cast<unsigned long long>(sink));
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <dir holding versions/> [rounds]\n", argv[0]);
        return 2;
    }
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
    std::vector<fs::path> files;
    for (const auto &entry : fs::recursive_directory_iterator(fs::path(argv[1]) / "versions"))
        if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> docs;
    std::size_t bytes = 0;
    for (const auto &f : files) {
        std::ifstream in(f, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        docs.push_back(s.str());
        bytes += docs.back().size();
    }
    std::printf("%zu documents, %.1f MB, %d round(s)\n\n", docs.size(), bytes / 1e6, rounds);
    std::printf("| pipeline | MB/s (CPU time) | MB/s (wall) | checksum |\n|---|---|---|---|\n");

    measure("XXH3-64 of the whole document (floor)", docs, bytes, rounds,
            [](const std::string &d) { return simhash::feature_hash(d, 0); });
    measure("tokenizer only (words, folded)", docs, bytes, rounds, [](const std::string &d) {
        CountWords c;
        simhash::Tokenizer t(c);
        t.feed(d);
        t.separator();
        return c.n;
    });
    const TextOptions defaults;
    measure("simhash words n=1 tf (default)", docs, bytes, rounds,
            [&](const std::string &d) { return simhash::fingerprint_text(d, defaults, nullptr); });
    TextOptions chars;
    chars.tokens = TextOptions::Tokens::chars;
    chars.shingle = 3;
    measure("simhash chars n=3 tf", docs, bytes, rounds,
            [&](const std::string &d) { return simhash::fingerprint_text(d, chars, nullptr); });
    return 0;
}
