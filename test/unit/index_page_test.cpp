#include <gtest/gtest.h>

#include <vector>

#include "index_page.hpp"

using namespace simhash::index;

TEST(IndexPage, PlainEntryRoundTrip) {
    std::vector<std::uint8_t> area(10 * kLeafEntrySize);
    for (std::uint32_t i = 0; i < 10; ++i) leaf_put(area.data(), i, {i * 7ull, i, static_cast<std::uint16_t>(i + 1)});
    EntryKey e = leaf_get(area.data(), 3);
    EXPECT_EQ(e.key, 21u);
    EXPECT_EQ(e.block, 3u);
    EXPECT_EQ(e.offset, 4);
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
