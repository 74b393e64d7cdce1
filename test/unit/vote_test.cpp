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

namespace {

// The definition of the vote, one bit at a time, with exact totals.
struct ReferenceVote {
    __int128 totals[64] = {};
    std::uint64_t features = 0;
    void add(std::uint64_t hash, simhash::FixedWeight weight) {
        for (int i = 0; i < 64; ++i) totals[i] += ((hash >> i) & 1) ? weight : -weight;
        ++features;
    }
    std::uint64_t fingerprint() const {
        std::uint64_t f = 0;
        for (int i = 0; i < 64; ++i)
            if (totals[i] > 0) f |= std::uint64_t{1} << i;
        return f;
    }
};

// The serialized image holds every total, so equal images mean equal votes
// bit by bit, not only equal fingerprints.
void expect_same_votes(const Vote &v, const ReferenceVote &ref) {
    unsigned char image[Vote::kSerializedSize];
    v.serialize(image);
    for (int i = 0; i < 64; ++i) {
        unsigned __int128 t = 0;
        for (int b = 0; b < 16; ++b) t |= static_cast<unsigned __int128>(image[16 * i + b]) << (8 * b);
        ASSERT_TRUE(static_cast<__int128>(t) == ref.totals[i]) << "bit " << i;
    }
    EXPECT_EQ(v.fingerprint(), ref.fingerprint());
}

std::uint64_t next_random(std::uint64_t &state) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state ^ (state >> 29);
}

}  // namespace

// Unit votes go through byte counters (vector code on x86-64) flushed every 255
// units: counts on both sides of each flush must give the reference's totals.
TEST(Vote, UnitLanesMatchReferenceAroundFlushBoundary) {
    std::uint64_t state = 42;
    for (int count : {0, 1, 2, 15, 16, 17, 254, 255, 256, 509, 510, 511, 765, 1000, 4096}) {
        Vote v;
        ReferenceVote ref;
        for (int i = 0; i < count; ++i) {
            const std::uint64_t h = next_random(state);
            v.add_unit(h);
            ref.add(h, simhash::kUnitWeight);
        }
        SCOPED_TRACE(count);
        expect_same_votes(v, ref);
    }
}

// Every lane saturated: all-ones hashes up to and past a byte counter's range.
TEST(Vote, UnitLanesCountAllOnesPastByteRange) {
    for (int count : {255, 256, 300}) {
        Vote v;
        ReferenceVote ref;
        for (int i = 0; i < count; ++i) {
            v.add_unit(~std::uint64_t{0});
            ref.add(~std::uint64_t{0}, simhash::kUnitWeight);
            v.add_unit(std::uint64_t{1} << (i % 64));
            ref.add(std::uint64_t{1} << (i % 64), simhash::kUnitWeight);
        }
        SCOPED_TRACE(count);
        expect_same_votes(v, ref);
    }
}

// Exact ties on every bit give 0, however the units fall around a flush.
TEST(Vote, UnitLanesTieToZero) {
    std::uint64_t state = 7;
    Vote v;
    ReferenceVote ref;
    for (int i = 0; i < 300; ++i) {
        const std::uint64_t h = next_random(state);
        for (std::uint64_t x : {h, ~h}) {
            v.add_unit(x);
            ref.add(x, simhash::kUnitWeight);
        }
    }
    expect_same_votes(v, ref);
    EXPECT_EQ(v.fingerprint(), 0ULL);
}

// Weighted and unit votes interleaved, pending units left at any point, then merged.
TEST(Vote, MixedUnitAndWeightedMatchReference) {
    std::uint64_t state = 2026;
    Vote v, other;
    ReferenceVote ref;
    for (int i = 0; i < 3000; ++i) {
        const std::uint64_t h = next_random(state);
        const std::uint64_t r = next_random(state);
        Vote &target = (r & 8) ? v : other;
        if (r % 5 == 0) {
            const simhash::FixedWeight w = static_cast<simhash::FixedWeight>(r >> 34);
            target.add(h, w);
            ref.add(h, w);
        } else {
            target.add_unit(h);
            ref.add(h, simhash::kUnitWeight);
        }
    }
    v.merge(other);
    expect_same_votes(v, ref);
}

// Batches larger than a byte counter's range, starting with units pending.
TEST(Vote, UnitBatchesMatchReferenceAcrossFlushes) {
    std::uint64_t state = 99;
    std::vector<std::uint64_t> hashes(1500);
    for (auto &h : hashes) h = next_random(state);
    Vote v;
    ReferenceVote ref;
    std::size_t at = 0;
    for (std::size_t batch : {100, 0, 155, 1, 700, 544}) {
        v.add_units(hashes.data() + at, batch);
        for (std::size_t i = 0; i < batch; ++i) ref.add(hashes[at + i], simhash::kUnitWeight);
        at += batch;
        SCOPED_TRACE(at);
        expect_same_votes(v, ref);
    }
}
