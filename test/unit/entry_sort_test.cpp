#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "entry_sort.hpp"

using simhash::index::EntryKey;

namespace {

std::vector<EntryKey> bucket_sorted(std::vector<EntryKey> v, int *polls = nullptr) {
    std::vector<EntryKey> scratch(v.size());
    std::vector<std::size_t> ends(simhash::index::kSortBuckets + 1);
    int count = 0;
    simhash::index::sort_entries(v.data(), v.size(), scratch.data(), ends.data(), [&] { ++count; });
    if (polls) *polls = count;
    return v;
}

std::vector<EntryKey> comparison_sorted(std::vector<EntryKey> v) {
    std::sort(v.begin(), v.end(), simhash::index::KeyLess());
    return v;
}

bool same(const std::vector<EntryKey> &a, const std::vector<EntryKey> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const EntryKey &x, const EntryKey &y) {
        return simhash::index::compare_keys(x, y) == 0;
    });
}

// Keys drawn by `key`, TIDs in a shuffled order (the heap scan's order is not
// the table's).
template <typename KeyOf>
std::vector<EntryKey> entries(std::size_t n, std::mt19937_64 &rng, KeyOf key) {
    std::vector<EntryKey> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = {key(i), static_cast<std::uint32_t>(i / 100), static_cast<std::uint16_t>(1 + i % 100)};
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

}  // namespace

TEST(EntrySort, MatchesTheComparisonSort) {
    std::mt19937_64 rng(7);
    for (std::size_t n : {0, 1, 2, 17, 1000, 200000}) {
        auto random = entries(n, rng, [&](std::size_t) { return rng(); });
        EXPECT_TRUE(same(bucket_sorted(random), comparison_sorted(random))) << n;
        // every key equal: one bucket, ordered by TID
        auto equal = entries(n, rng, [](std::size_t) { return std::uint64_t{0x0123456789abcdef}; });
        EXPECT_TRUE(same(bucket_sorted(equal), comparison_sorted(equal))) << n;
        // a shared 40-bit prefix: one bucket of distinct keys
        auto prefix = entries(n, rng, [&](std::size_t) { return (std::uint64_t{0xabcdef1234} << 24) | (rng() & 0xFFFFFF); });
        EXPECT_TRUE(same(bucket_sorted(prefix), comparison_sorted(prefix))) << n;
        // few distinct values with many copies each, in every bucket
        auto copies = entries(n, rng, [&](std::size_t i) { return (i % 37) * 0x0400000000000001ULL; });
        EXPECT_TRUE(same(bucket_sorted(copies), comparison_sorted(copies))) << n;
    }
}

TEST(EntrySort, PollsWhileItRuns) {
    std::mt19937_64 rng(9);
    int polls = 0;
    bucket_sorted(entries(300000, rng, [](std::size_t) { return std::uint64_t{42}; }), &polls);
    // two passes over 300,000 entries, then ~5M comparisons in the one bucket
    EXPECT_GT(polls, 10);
}
