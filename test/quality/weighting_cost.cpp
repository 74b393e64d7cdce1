// Cost of the weighting schemes, for valgrind's instruction counts (wall time
// on a shared machine is too noisy): fingerprints every 100th PEP version with
// one scheme. Scheme 9 only loads the versions and builds the statistics, the
// baseline to subtract.
//
// usage: valgrind --tool=callgrind --callgrind-out-file=/dev/null
//            weighting_cost <dir holding versions/> <0 tf | 1 log_tf | 2 tf x idf, binary search |
//                                                    3 tf x idf, directory | 9 baseline>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "feature_weights.hpp"
#include "radix_guide.hpp"
#include "text_features.hpp"

namespace fs = std::filesystem;
using simhash::TextOptions;

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <dir holding versions/> <scheme 0|1|2|3|9>\n", argv[0]);
        return 2;
    }
    const int scheme = std::atoi(argv[2]);
    std::vector<fs::path> files;
    for (const auto &e : fs::recursive_directory_iterator(fs::path(argv[1]) / "versions"))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < files.size(); i += 100) {
        std::ifstream in(files[i], std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        texts.push_back(s.str());
    }
    std::unordered_map<std::uint64_t, std::uint64_t> counts;
    for (const auto &t : texts)
        for (std::uint64_t h : simhash::distinct_feature_hashes(t, TextOptions{}, nullptr)) ++counts[h];
    std::vector<simhash::DfEntry> entries;
    for (const auto &[h, d] : counts) entries.push_back(simhash::DfEntry{h, d});
    const std::size_t n = simhash::sort_df_entries(entries.data(), entries.size());
    const int bits = simhash::radix_guide_bits(n, simhash::kDfGuideBits);
    std::vector<std::uint32_t> directory((std::size_t{1} << bits) + 1);
    simhash::build_radix_guide(n, bits, [&](std::size_t i) { return entries[i].hash; }, directory.data());
    const simhash::DocumentFrequencies plain(entries.data(), n, texts.size());
    const simhash::DocumentFrequencies indexed(entries.data(), n, texts.size(), directory.data(), bits);

    TextOptions o;
    if (scheme == 1) o.weighting = TextOptions::Weighting::log_tf;
    if (scheme == 2) o.idf = &plain;
    if (scheme == 3) o.idf = &indexed;
    std::uint64_t x = 0;
    if (scheme != 9)
        for (const auto &t : texts) x ^= simhash::fingerprint_text(t, o, nullptr);
    std::printf("%zu versions, scheme %d, xor of fingerprints %016llx\n", texts.size(), scheme,
                static_cast<unsigned long long>(x));
    return 0;
}
