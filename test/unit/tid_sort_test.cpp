#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tid_sort.hpp"

namespace {

// Sorts a copy of keys, checks it against a stable sort on their low `bits`
// bits (the others travel with them) and returns how many
// times it polled: under 65,536 keys, once per pass it made.
std::size_t expect_sorted_like_std(std::vector<std::uint64_t> keys, int bits = simhash::index::kTidKeyBits) {
    const std::uint64_t sorted = (std::uint64_t{1} << bits) - 1;
    std::vector<std::uint64_t> expected = keys, scratch(keys.size());
    std::stable_sort(expected.begin(), expected.end(),
                     [sorted](std::uint64_t a, std::uint64_t b) { return (a & sorted) < (b & sorted); });
    std::size_t polls = 0;
    simhash::index::sort_tids(keys.data(), scratch.data(), keys.size(), bits, [&] { ++polls; });
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
    simhash::index::sort_tids(keys.data(), scratch.data(), keys.size(), simhash::index::kTidKeyBits, [&] { ++polls; });
    EXPECT_EQ(polls, 7u * 4u);
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

// Whole TIDs with a position in the top 16 bits. Equal TIDs (a row found
// through two tables) keep their positions' order, on both sides of the
// radix threshold. (The scan itself sorts fewer than 256 hits by comparison:
// either copy of a row may stay, which is all it needs.)
TEST(TidSort, CarriesTheTopBitsAndKeepsEqualKeysInOrder) {
    std::mt19937_64 rng(19);
    for (std::size_t n : {200, 5000, 65536}) {
        std::vector<std::uint64_t> keys(n);
        for (std::size_t i = 0; i < n; ++i)
            keys[i] = tid(7000 + rng() % 50, 1 + rng() % 40) | (static_cast<std::uint64_t>(i) << 48);
        expect_sorted_like_std(keys);
    }
}

// A scan's TIDs in a few hundred blocks need 9 bits of offset (up to 291)
// and 9 of block (the distance from block 6000): 18 bits, in the same order
// as the whole TIDs, equal where they are equal.
TEST(TidSort, PacksIntoTheFewestBitsKeepingOrder) {
    std::mt19937_64 rng(23);
    std::vector<std::uint64_t> keys;
    keys.push_back(tid(6000, 291));
    keys.push_back(tid(6299, 1));
    for (int i = 0; i < 3000; ++i) keys.push_back(tid(6000 + rng() % 300, 1 + rng() % 291));
    std::vector<std::uint64_t> packed = keys;
    EXPECT_EQ(simhash::index::pack_tids(packed.data(), packed.size(), [] {}), 18);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        EXPECT_LT(packed[i], std::uint64_t{1} << 18);
        std::size_t j = rng() % keys.size();
        EXPECT_EQ(keys[i] < keys[j], packed[i] < packed[j]);
        EXPECT_EQ(keys[i] == keys[j], packed[i] == packed[j]);
    }
    std::vector<std::uint64_t> one{tid(77, 1)}, none;
    EXPECT_EQ(simhash::index::pack_tids(one.data(), one.size(), [] {}), 1);
    EXPECT_EQ(one[0], 1u);
    EXPECT_EQ(simhash::index::pack_tids(none.data(), none.size(), [] {}), 1);
}

// A streaming batch: 200,000 hits, more positions than 16 bits hold, above
// TIDs packed into 22 bits; they come out in TID order, repeats in position
// order.
TEST(TidSort, SortsPackedKeysUnderWidePositions) {
    std::mt19937_64 rng(29);
    std::vector<std::uint64_t> keys(200000);
    for (auto &k : keys) k = tid(100000 + rng() % 5000, 1 + rng() % 120);
    int bits = simhash::index::pack_tids(keys.data(), keys.size(), [] {});
    EXPECT_EQ(bits, 7 + 13);
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] |= static_cast<std::uint64_t>(i) << bits;
    expect_sorted_like_std(keys, bits);
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
