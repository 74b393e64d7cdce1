#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "index_page.hpp"

using namespace simhash::index;

TEST(IndexPage, LeafRoundTripAndRemove) {
    std::vector<std::uint8_t> area(10 * kLeafEntrySize);
    for (std::uint32_t i = 0; i < 10; ++i) leaf_put(area.data(), i, {i * 7ull, i, static_cast<std::uint16_t>(i + 1)});
    EntryKey e = leaf_get(area.data(), 3);
    EXPECT_EQ(e.key, 21u);
    EXPECT_EQ(e.block, 3u);
    EXPECT_EQ(e.offset, 4);
    std::size_t n = leaf_remove_if(area.data(), 10, [](const EntryKey &x) { return x.block % 2 == 0; });
    ASSERT_EQ(n, 5u);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(leaf_get(area.data(), i).block % 2, 1u);
    EXPECT_EQ(leaf_remove_if(area.data(), n, [](const EntryKey &) { return true; }), 0u);
}

TEST(IndexPage, LeafSplitSeparates) {
    std::mt19937_64 rng(1);
    const std::size_t n = 101;
    std::vector<std::uint8_t> left(n * kLeafEntrySize), right(n * kLeafEntrySize);
    std::vector<EntryKey> scratch(n);
    // Half the keys identical: the TID still orders them.
    for (std::size_t i = 0; i < n; ++i)
        leaf_put(left.data(), i, {i % 2 ? 42 : rng(), static_cast<std::uint32_t>(i), 1});
    std::size_t nl, nr;
    EntryKey sep = leaf_split(left.data(), n, right.data(), scratch.data(), &nl, &nr);
    EXPECT_EQ(nl + nr, n);
    EXPECT_GT(nl, 0u);
    EXPECT_GT(nr, 0u);
    for (std::size_t i = 0; i < nl; ++i) EXPECT_TRUE(key_less(leaf_get(left.data(), i), sep));
    for (std::size_t i = 0; i < nr; ++i) EXPECT_FALSE(key_less(leaf_get(right.data(), i), sep));
    std::size_t bad;
    EXPECT_TRUE(leaf_keys_within(left.data(), nl, {0, 0, 0}, true, sep, &bad));
    EXPECT_FALSE(leaf_keys_within(right.data(), nr, {0, 0, 0}, true, sep, &bad));
}

TEST(IndexPage, InternalFindInsertSplit) {
    std::vector<std::uint8_t> area(20 * kInternalEntrySize), right(20 * kInternalEntrySize);
    std::size_t n = 0;
    internal_insert(area.data(), n++, 0, {{0, 0, 0}, 100});
    internal_insert(area.data(), n++, 1, {{50, 0, 0}, 101});
    internal_insert(area.data(), n++, 1, {{20, 3, 1}, 102});
    EXPECT_EQ(internal_get(area.data(), internal_find(area.data(), n, {19, 9, 9})).child, 100u);
    EXPECT_EQ(internal_get(area.data(), internal_find(area.data(), n, {20, 3, 1})).child, 102u);
    EXPECT_EQ(internal_get(area.data(), internal_find(area.data(), n, {20, 3, 0})).child, 100u);
    EXPECT_EQ(internal_get(area.data(), internal_find(area.data(), n, {~0ull, 0, 0})).child, 101u);
    std::size_t bad;
    EXPECT_TRUE(internal_sorted_within(area.data(), n, {0, 0, 0}, false, {}, &bad));
    EXPECT_FALSE(internal_sorted_within(area.data(), n, {0, 0, 0}, true, {50, 0, 0}, &bad));
    EXPECT_EQ(bad, 2u);
    std::size_t nl, nr;
    EntryKey sep = internal_split(area.data(), n, right.data(), &nl, &nr);
    EXPECT_EQ(nl, 1u);
    EXPECT_EQ(nr, 2u);
    EXPECT_EQ(sep.key, 20u);
    EXPECT_TRUE(internal_sorted_within(right.data(), nr, sep, false, {}, &bad));
}

TEST(IndexPage, LeafNearMatchesPopcountAtEveryRadius) {
    std::mt19937_64 rng(7);
    const std::size_t n = 300;
    std::vector<std::uint8_t> area(n * kLeafEntrySize);
    const std::uint64_t q = rng();
    for (std::size_t i = 0; i < n; ++i) {
        // keys at every distance from q, some equal to it
        std::uint64_t flips = i % 65 == 64 ? ~0ull : (1ull << (i % 65)) - 1;
        std::uint64_t key = i % 3 == 0 ? q ^ flips : rng();
        leaf_put(area.data(), i, {key, static_cast<std::uint32_t>(i), 1});
    }
    std::vector<std::uint16_t> out(n);
    for (int radius = -1; radius <= 64; ++radius) {
        std::size_t m = leaf_near(area.data(), n, q, radius, out.data());
        std::vector<std::uint16_t> want;
        for (std::size_t i = 0; i < n; ++i)
            if (__builtin_popcountll(leaf_get(area.data(), i).key ^ q) <= radius) want.push_back(static_cast<std::uint16_t>(i));
        ASSERT_EQ(std::vector<std::uint16_t>(out.begin(), out.begin() + m), want) << "radius " << radius;
    }
}
