#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "vote.hpp"

using simhash::Vote;

static std::uint64_t compute(const std::vector<std::uint64_t> &hashes) {
    Vote v;
    for (auto h : hashes) v.add_unit(h);
    return v.fingerprint();
}

// The vectors of seomoz/simhash-cpp's compute().
TEST(Vote, MatchesSeomozCompute) {
    EXPECT_EQ(compute({0xABCD, 0xBCDE, 0xCDEF}), 0xadcfULL);
    EXPECT_EQ(compute({0xDEADBEEFDEADBEEFULL, 0x2152411021524110ULL}), 0ULL);  // every bit ties
}

TEST(Vote, NoFeaturesGivesZero) {
    Vote v;
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(v.fingerprint(), 0ULL);
}

TEST(Vote, UnitLanesAgreeWithWeightedPathPastLaneCapacity) {
    Vote unit, weighted;
    std::uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 10000; ++i) {
        h = h * 6364136223846793005ULL + 1442695040888963407ULL;
        std::uint64_t feature = (i % 3 == 0) ? 0xFFFF0000FFFF0000ULL : h;
        unit.add_unit(feature);
        weighted.add(feature, simhash::kUnitWeight);
    }
    EXPECT_EQ(unit.fingerprint(), weighted.fingerprint());
}

TEST(Vote, WeightsDecide) {
    Vote v;
    v.add(0x1, simhash::kUnitWeight * 3);
    v.add(0x2, simhash::kUnitWeight * 2);
    EXPECT_EQ(v.fingerprint(), 0x1ULL);
}

TEST(Vote, MergeEqualsSingleVote) {
    Vote all, a, b;
    for (std::uint64_t i = 1; i < 600; ++i) {
        std::uint64_t h = i * 0x9E3779B97F4A7C15ULL;
        all.add_unit(h);
        (i % 2 ? a : b).add_unit(h);
    }
    a.merge(b);
    EXPECT_EQ(a.fingerprint(), all.fingerprint());
}

TEST(Vote, SerializeRoundTrip) {
    Vote v;
    for (std::uint64_t i = 1; i < 300; ++i) v.add(i * 0x9E3779B97F4A7C15ULL, static_cast<simhash::FixedWeight>(i) << 20);
    v.add_unit(0x1234);
    unsigned char image[Vote::kSerializedSize];
    v.serialize(image);
    Vote back = Vote::deserialize(image);
    EXPECT_EQ(back.fingerprint(), v.fingerprint());
    unsigned char image2[Vote::kSerializedSize];
    back.serialize(image2);
    EXPECT_EQ(std::memcmp(image, image2, sizeof image), 0);
}

TEST(FixedWeight, RejectsWhatCannotBeAWeight) {
    simhash::FixedWeight w;
    EXPECT_FALSE(simhash::to_fixed_weight(-1.0, &w));
    EXPECT_FALSE(simhash::to_fixed_weight(std::nan(""), &w));
    EXPECT_FALSE(simhash::to_fixed_weight(INFINITY, &w));
    EXPECT_FALSE(simhash::to_fixed_weight(simhash::kMaxWeight, &w));
    ASSERT_TRUE(simhash::to_fixed_weight(1.5, &w));
    EXPECT_EQ(w, simhash::kUnitWeight + simhash::kUnitWeight / 2);
    ASSERT_TRUE(simhash::to_fixed_weight(0.0, &w));
    EXPECT_EQ(w, 0);
}

TEST(FixedWeight, Log1pIsCloseToLibmAndExactAtOne) {
    EXPECT_EQ(simhash::log1p_weight(0), 0);
    for (std::uint64_t c : {1ULL, 2ULL, 3ULL, 7ULL, 100ULL, 12345ULL, 1ULL << 40, ~0ULL - 1}) {
        double expect = std::log1p(static_cast<double>(c)) * 4294967296.0;
        EXPECT_NEAR(static_cast<double>(simhash::log1p_weight(c)), expect, std::max(2.0, expect * 1e-11)) << c;
    }
}
