#include <gtest/gtest.h>

#include <vector>

#include "hash_vote.hpp"

using simhash::fingerprint_hashes;
using simhash::FixedWeight;
using simhash::kUnitWeight;

// seomoz/simhash-cpp's compute() vectors.
TEST(HashVote, UnweightedIsSeomozCompute) {
    const std::uint64_t a[] = {0xABCD, 0xBCDE, 0xCDEF};
    EXPECT_EQ(fingerprint_hashes(a, nullptr, 3, nullptr), 0xadcfULL);
    const std::uint64_t tie[] = {0xDEADBEEFDEADBEEFULL, 0x2152411021524110ULL};
    EXPECT_EQ(fingerprint_hashes(tie, nullptr, 2, nullptr), 0ULL);
}

TEST(HashVote, NoFeaturesGiveZero) { EXPECT_EQ(fingerprint_hashes(nullptr, nullptr, 0, nullptr), 0ULL); }

TEST(HashVote, UnitWeightsEqualUnweighted) {
    std::vector<std::uint64_t> h;
    for (std::uint64_t i = 1; i < 1000; ++i) h.push_back(i * 0x9E3779B97F4A7C15ULL);
    std::vector<FixedWeight> w(h.size(), kUnitWeight);
    EXPECT_EQ(fingerprint_hashes(h.data(), w.data(), h.size(), nullptr),
              fingerprint_hashes(h.data(), nullptr, h.size(), nullptr));
}

TEST(HashVote, HeavierFeatureWins) {
    const std::uint64_t h[] = {0x1, 0x2};
    const FixedWeight w[] = {kUnitWeight / 2 + 1, kUnitWeight / 2};
    EXPECT_EQ(fingerprint_hashes(h, w, 2, nullptr), 0x1ULL);
    const FixedWeight zero[] = {0, 0};
    EXPECT_EQ(fingerprint_hashes(h, zero, 2, nullptr), 0ULL);
}

static bool always_interrupted() { return true; }

TEST(HashVote, LongInputsPollTheInterruptCheck) {
    std::vector<std::uint64_t> h(100000, 0x5);
    try {
        fingerprint_hashes(h.data(), nullptr, h.size(), always_interrupted);
        FAIL() << "expected a cancellation";
    } catch (const simhash::Error &e) {
        EXPECT_EQ(e.kind(), simhash::Error::Kind::cancelled);
    }
    // Short inputs finish before the first poll.
    EXPECT_EQ(fingerprint_hashes(h.data(), nullptr, 10, always_interrupted), 0x5ULL);
}
