#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "feature_hash.hpp"
#include "feature_weights.hpp"
#include "radix_guide.hpp"
#include "jenkins_hash.hpp"
#include "text_features.hpp"

using simhash::DfEntry;
using simhash::DocumentFrequencies;
using simhash::FixedWeight;
using simhash::kUnitWeight;
using simhash::TextOptions;
using simhash::WeightedFeature;

namespace {

FixedWeight fixed(double w) {
    FixedWeight out = 0;
    EXPECT_TRUE(simhash::to_fixed_weight(w, &out));
    return out;
}

std::vector<std::uint64_t> hashes(const std::vector<WeightedFeature> &features) {
    std::vector<std::uint64_t> out;
    for (const auto &f : features) out.push_back(f.hash);
    return out;
}

}  // namespace

TEST(KeepTopN, KeepsTheHeaviestInTheirOriginalOrder) {
    std::vector<WeightedFeature> f = {{10, 1 * kUnitWeight}, {20, 5 * kUnitWeight}, {30, 3 * kUnitWeight},
                                      {40, 4 * kUnitWeight}, {50, 2 * kUnitWeight}};
    simhash::keep_top_n(f, 3);
    EXPECT_EQ(hashes(f), (std::vector<std::uint64_t>{20, 30, 40}));
    EXPECT_EQ(f[0].weight, 5 * kUnitWeight);
}

TEST(KeepTopN, TiesGoToTheSmallerHash) {
    std::vector<WeightedFeature> f = {{9, kUnitWeight}, {3, kUnitWeight}, {7, 2 * kUnitWeight}, {5, kUnitWeight}};
    simhash::keep_top_n(f, 2);
    EXPECT_EQ(hashes(f), (std::vector<std::uint64_t>{3, 7}));
    // The same set whatever the input order.
    std::vector<WeightedFeature> g = {{5, kUnitWeight}, {7, 2 * kUnitWeight}, {9, kUnitWeight}, {3, kUnitWeight}};
    simhash::keep_top_n(g, 2);
    EXPECT_EQ(hashes(g), (std::vector<std::uint64_t>{7, 3}));
}

TEST(KeepTopN, ZeroOrLargeNKeepsEverything) {
    const std::vector<WeightedFeature> all = {{1, kUnitWeight}, {2, 2 * kUnitWeight}};
    auto f = all;
    simhash::keep_top_n(f, 0);
    EXPECT_EQ(hashes(f), hashes(all));
    simhash::keep_top_n(f, 2);
    EXPECT_EQ(hashes(f), hashes(all));
    simhash::keep_top_n(f, 99);
    EXPECT_EQ(hashes(f), hashes(all));
}

TEST(DocumentFrequencies, SortMergesDuplicates) {
    std::vector<DfEntry> e = {{30, 1}, {10, 2}, {30, 4}, {20, 1}};
    const std::size_t n = simhash::sort_df_entries(e.data(), e.size());
    ASSERT_EQ(n, 3u);
    EXPECT_EQ(e[0].hash, 10u);
    EXPECT_EQ(e[2].hash, 30u);
    EXPECT_EQ(e[2].df, 5u);
}

TEST(DocumentFrequencies, SortAnswersCancel) {
    std::vector<DfEntry> e;
    for (std::uint64_t i = 200000; i > 0; --i) e.push_back({i * 0x9E3779B97F4A7C15ULL, 1});
    try {
        simhash::sort_df_entries(e.data(), e.size(), [] { return true; });
        FAIL() << "not cancelled";
    } catch (const simhash::Error &err) {
        EXPECT_EQ(err.kind(), simhash::Error::Kind::cancelled);
    }
    EXPECT_EQ(simhash::sort_df_entries(e.data(), e.size(), [] { return false; }), e.size());
}

TEST(DocumentFrequencies, IdfIsLog1pOfDocumentsOverDf) {
    std::vector<DfEntry> e = {{1, 1}, {2, 10}, {3, 100}, {4, 0}};
    const std::size_t n = simhash::sort_df_entries(e.data(), e.size());
    const DocumentFrequencies d(e.data(), n, 100);
    EXPECT_EQ(d.df(2), 10u);
    EXPECT_EQ(d.df(99), 0u);
    EXPECT_EQ(d.idf(1), fixed(std::log(101.0)));
    EXPECT_EQ(d.idf(2), fixed(std::log(11.0)));
    EXPECT_EQ(d.idf(3), fixed(std::log(2.0)));
    // Unseen features and df = 0 weigh as df = 1: the rarest.
    EXPECT_EQ(d.idf(99), d.idf(1));
    EXPECT_EQ(d.idf(4), d.idf(1));
    // An empty corpus weighs everything 0.
    const DocumentFrequencies empty(nullptr, 0, 0);
    EXPECT_EQ(empty.idf(1), 0);
}

TEST(DocumentFrequencies, ScaleWeight) {
    EXPECT_EQ(simhash::scale_weight(3 * kUnitWeight, kUnitWeight / 2), 3 * kUnitWeight / 2);
    EXPECT_EQ(simhash::scale_weight(kUnitWeight, 0), 0);
    EXPECT_THROW(simhash::scale_weight(FixedWeight{1} << 62, 4 * kUnitWeight), simhash::Error);
}

TEST(TextWeighting, JenkinsHashesEveryFeature) {
    TextOptions o;
    o.hash = TextOptions::Hash::jenkins;
    const auto rows = simhash::explain_text("hello world hello", o, nullptr);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].hash, simhash::jenkins_hash("hello"));
    EXPECT_EQ(rows[0].hash, 0x34cbbc6e5c04b779u);
    EXPECT_EQ(rows[0].weight, 2 * kUnitWeight);
    simhash::Vote v;
    v.add(simhash::jenkins_hash("hello"), 2 * kUnitWeight);
    v.add(simhash::jenkins_hash("world"), kUnitWeight);
    EXPECT_EQ(simhash::fingerprint_text("hello world hello", o, nullptr), v.fingerprint());
    EXPECT_NE(simhash::fingerprint_text("hello world hello", o, nullptr),
              simhash::fingerprint_text("hello world hello", TextOptions{}, nullptr));
}

TEST(TextWeighting, TopNVotesWithTheHeaviestOnly) {
    const std::string doc = "a a a a b b b c c d e f g";
    TextOptions o;
    o.top_n = 3;
    const auto rows = simhash::explain_text(doc, o, nullptr);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].feature, "a");
    EXPECT_EQ(rows[1].feature, "b");
    EXPECT_EQ(rows[2].feature, "c");
    simhash::Vote v;
    for (const auto &r : rows) v.add(r.hash, r.weight);
    EXPECT_EQ(simhash::fingerprint_text(doc, o, nullptr), v.fingerprint());
    // A top_n beyond the distinct features changes nothing.
    o.top_n = 100;
    EXPECT_EQ(simhash::fingerprint_text(doc, o, nullptr), simhash::fingerprint_text(doc, TextOptions{}, nullptr));
}

TEST(TextWeighting, IdfMultipliesTheWeighting) {
    const std::uint64_t common = simhash::feature_hash("the", 0), rare = simhash::feature_hash("cat", 0);
    std::vector<DfEntry> e = {{common, 9}, {rare, 1}};
    const DocumentFrequencies d(e.data(), simhash::sort_df_entries(e.data(), e.size()), 9);
    TextOptions o;
    o.idf = &d;
    const auto rows = simhash::explain_text("the the cat dog", o, nullptr);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].weight, simhash::scale_weight(2 * kUnitWeight, fixed(std::log(2.0))));
    EXPECT_EQ(rows[1].weight, fixed(std::log(10.0)));
    EXPECT_EQ(rows[2].weight, fixed(std::log(10.0)));  // unseen: ln(1 + N)
    simhash::Vote v;
    for (const auto &r : rows) v.add(r.hash, r.weight);
    EXPECT_EQ(simhash::fingerprint_text("the the cat dog", o, nullptr), v.fingerprint());
    // log_tf x idf, and idf before top_n: the common word is dropped first.
    o.weighting = TextOptions::Weighting::log_tf;
    o.top_n = 2;
    const auto kept = simhash::explain_text("the the cat dog", o, nullptr);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[0].feature, "cat");
    EXPECT_EQ(kept[1].feature, "dog");
}

TEST(TextWeighting, DistinctFeatureHashes) {
    TextOptions o;
    o.shingle = 2;
    auto h = simhash::distinct_feature_hashes("a b a b c", o, nullptr);
    std::sort(h.begin(), h.end());
    std::vector<std::uint64_t> want = {simhash::feature_hash("a b", 0), simhash::feature_hash("b a", 0),
                                       simhash::feature_hash("b c", 0)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(h, want);
}

TEST(TextWeighting, ValidateNamesTheOption) {
    TextOptions o;
    o.hash = TextOptions::Hash::jenkins;
    o.seed = 1;
    try {
        simhash::fingerprint_text("x", o, nullptr);
        FAIL();
    } catch (const simhash::Error &e) {
        EXPECT_NE(std::string(e.what()).find("seed"), std::string::npos);
    }
    TextOptions t;
    t.top_n = -1;
    try {
        simhash::fingerprint_text("x", t, nullptr);
        FAIL();
    } catch (const simhash::Error &e) {
        EXPECT_NE(std::string(e.what()).find("top_n"), std::string::npos);
    }
}

TEST(KeepTopN, LengthRule) {
    EXPECT_EQ(simhash::top_n_for_length(0), 16);
    EXPECT_EQ(simhash::top_n_for_length(64), 16);
    EXPECT_EQ(simhash::top_n_for_length(100), 20);
    EXPECT_EQ(simhash::top_n_for_length(10000), 200);
    EXPECT_EQ(simhash::top_n_for_length(10001), 200);
    EXPECT_EQ(simhash::top_n_for_length(std::int64_t{1} << 40), 2097152);
    EXPECT_EQ(simhash::top_n_for_length(INT64_MAX), INT32_MAX);
    EXPECT_THROW(simhash::top_n_for_length(-1), simhash::Error);
}

TEST(DocumentFrequencies, GuidedLookupsEqualTheSearch) {
    // Hashes spread over the whole range and crowded into one bucket, some absent.
    std::vector<DfEntry> e;
    std::uint64_t x = 0x9E3779B97F4A7C15u;
    for (std::uint64_t i = 0; i < 3000; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        e.push_back(DfEntry{i % 3 == 0 ? (x & 0xFFFF) : x, 1 + i % 50});
    }
    e.push_back(DfEntry{0, 7});
    e.push_back(DfEntry{~std::uint64_t{0}, 9});
    const std::size_t n = simhash::sort_df_entries(e.data(), e.size());
    for (int bits : {0, 1, 5, simhash::radix_guide_bits(n, simhash::kDfGuideBits)}) {
        std::vector<std::uint32_t> dir((std::size_t{1} << bits) + 1);
        simhash::build_radix_guide(n, bits, [&](std::size_t i) { return e[i].hash; }, dir.data());
        const DocumentFrequencies plain(e.data(), n, 100), indexed(e.data(), n, 100, dir.data(), bits);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(indexed.df(e[i].hash), e[i].df);
            ASSERT_EQ(indexed.df(e[i].hash + 1), plain.df(e[i].hash + 1));
            ASSERT_EQ(indexed.df(e[i].hash - 1), plain.df(e[i].hash - 1));
        }
    }
}
