// Fuzzes the weighting options of the text pipeline: the first bytes choose
// hash, weighting, top_n and a document-frequency table; the rest is the text.
// The fingerprint must be the vote over explain_text's rows, top_n must keep
// exactly min(N, distinct) rows, all of them at least as heavy as any dropped,
// and every weight must be positive (idf >= ln 2 with a non-empty corpus).
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "feature_weights.hpp"
#include "text_features.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 4) return 0;
    using simhash::TextOptions;
    TextOptions o;
    o.hash = (data[0] & 1) ? TextOptions::Hash::jenkins : TextOptions::Hash::xxh3;
    o.weighting = static_cast<TextOptions::Weighting>((data[0] >> 1) % 3);
    o.shingle = 1 + (data[0] >> 3) % 3;
    o.top_n = data[1] % 8;  // 0: all
    const bool with_idf = data[2] & 1;
    const std::uint64_t documents = 1 + data[3];
    std::string_view text(reinterpret_cast<const char *>(data + 4), size - 4);

    TextOptions all = o;
    all.top_n = 0;
    const auto every = simhash::explain_text(text, all, nullptr);
    // Statistics: every other distinct feature of the text, with small df.
    std::vector<simhash::DfEntry> entries;
    for (std::size_t i = 0; i < every.size(); i += 2)
        entries.push_back(simhash::DfEntry{every[i].hash, 1 + (every[i].hash % documents)});
    const simhash::DocumentFrequencies df(entries.data(), simhash::sort_df_entries(entries.data(), entries.size()),
                                          documents);
    if (with_idf) {
        o.idf = &df;
        all.idf = &df;
    }

    const auto rows = simhash::explain_text(text, o, nullptr);
    simhash::Vote vote;
    for (const auto &r : rows) {
        if (r.weight <= 0) __builtin_trap();
        vote.add(r.hash, r.weight);
    }
    if (vote.fingerprint() != simhash::fingerprint_text(text, o, nullptr)) __builtin_trap();

    const auto full = simhash::explain_text(text, all, nullptr);
    const std::size_t want = o.top_n == 0 ? full.size() : std::min<std::size_t>(o.top_n, full.size());
    if (rows.size() != want) __builtin_trap();
    simhash::FixedWeight lightest_kept = INT64_MAX;
    for (const auto &r : rows) lightest_kept = std::min(lightest_kept, r.weight);
    for (const auto &f : full) {
        const bool kept = std::any_of(rows.begin(), rows.end(), [&](const auto &r) { return r.hash == f.hash; });
        if (!kept && f.weight > lightest_kept) __builtin_trap();
    }
    return 0;
}
