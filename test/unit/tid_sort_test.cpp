#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tid_sort.hpp"

namespace {

// Sorts a copy of keys, checks it against a stable sort on their low 48 bits
// (the top 16 travel with them) and returns how many
// times it polled: under 65,536 keys, once per pass it made.
std::size_t expect_sorted_like_std(std::vector<std::uint64_t> keys) {
    std::vector<std::uint64_t> expected = keys, scratch(keys.size());
    std::stable_sort(expected.begin(), expected.end(), [](std::uint64_t a, std::uint64_t b) {
        return (a & simhash::index::kTidSortBits) < (b & simhash::index::kTidSortBits);
    });
    std::size_t polls = 0;
    simhash::index::sort_tids(keys.data(), scratch.data(), keys.size(), [&] { ++polls; });
    EXPECT_EQ(keys, expected);
    return polls;
}

std::uint64_t tid(std::uint32_t block, std::uint16_t offset) { return (std::uint64_t{block} << 16) | offset; }

TEST(TidSort, MatchesAComparisonSortAtEverySize) {
    std::mt19937_64 rng(7);
    for (std::size_t n : {0, 1, 2, 255, 256, 257, 1000, 4096, 100000}) {
        std::vector<std::uint64_t> keys(n);
        for (auto &k : keys) k = rng() & ((std::uint64_t{1} << 48) - 1);
        expect_sorted_like_std(keys);
    }
}

// What a scan finds: a few hundred heap blocks, offsets below 300, repeats
// (a row found through two tables). Blocks 6000-6299 and offsets 1-291 vary
// in bytes 0-3; bytes 4 and 5 are shared and skipped: the count and 4 passes.
TEST(TidSort, SkipsSharedBytesAndKeepsRepeats) {
    std::mt19937_64 rng(11);
    std::vector<std::uint64_t> keys;
    for (int i = 0; i < 5000; ++i) keys.push_back(tid(6000 + rng() % 300, 1 + rng() % 291));
    for (int i = 0; i < 500; ++i) keys.push_back(keys[rng() % keys.size()]);
    EXPECT_EQ(expect_sorted_like_std(keys), 5u);
}

// Each byte alone varying, the others shared: each pass is the only one.
TEST(TidSort, SortsOnEachByteAlone) {
    std::mt19937_64 rng(13);
    for (int b = 0; b < 6; ++b) {
        std::vector<std::uint64_t> keys(1000);
        for (auto &k : keys) k = tid(0x12345678 >> 4, 0x0abc) ^ ((rng() & 255) << (8 * b));
        EXPECT_EQ(expect_sorted_like_std(keys), 2u) << "byte " << b;  // the count and one pass
    }
}

// A cancel must be seen within each pass: the count, then six scatters of
// 200,000 keys whose every byte varies, each polled every 65,536 keys.
TEST(TidSort, PollsInEveryPass) {
    std::mt19937_64 rng(17);
    std::vector<std::uint64_t> keys(200000), scratch(keys.size());
    for (auto &k : keys) k = rng() & ((std::uint64_t{1} << 48) - 1);
    std::size_t polls = 0;
    simhash::index::sort_tids(keys.data(), scratch.data(), keys.size(), [&] { ++polls; });
    EXPECT_EQ(polls, 7u * 4u);
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

// A plain scan's keys: each TID with its hit's position in the top 16 bits.
// Equal TIDs (a row found through two tables) keep their positions' order,
// on both sides of the radix threshold. (The scan itself sorts fewer than
// 256 hits, or more than 65,536, by comparison: either copy of a row may
// stay, which is all it needs.)
TEST(TidSort, CarriesTheTopBitsAndKeepsEqualKeysInOrder) {
    std::mt19937_64 rng(19);
    for (std::size_t n : {200, 5000, 65536}) {
        std::vector<std::uint64_t> keys(n);
        for (std::size_t i = 0; i < n; ++i)
            keys[i] = tid(7000 + rng() % 50, 1 + rng() % 40) | (static_cast<std::uint64_t>(i) << 48);
        expect_sorted_like_std(keys);
    }
}

TEST(TidSort, AllEqualAndAlreadySorted) {
    expect_sorted_like_std(std::vector<std::uint64_t>(1000, tid(42, 7)));
    std::vector<std::uint64_t> keys(3000);
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = tid(static_cast<std::uint32_t>(i / 10), static_cast<std::uint16_t>(1 + i % 10));
    expect_sorted_like_std(keys);
    std::reverse(keys.begin(), keys.end());
    expect_sorted_like_std(keys);
}

}  // namespace
