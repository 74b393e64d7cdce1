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

TEST(IndexPage, InternalEntryKeepsTheSummaryOfItsChild) {
    std::vector<std::uint8_t> area(3 * kInternalEntrySize);
    InternalEntry down{{7, 8, 9}, 42, kNoKeysAnd, kNoKeysOr};
    summary_add(&down, 0xF0F0, 0xF0F0);
    summary_add(&down, 0xF0FF, 0xF0FF);
    internal_put(area.data(), 1, down);
    InternalEntry e = internal_get(area.data(), 1);
    EXPECT_EQ(e.low.key, 7u);
    EXPECT_EQ(e.child, 42u);
    EXPECT_EQ(e.keys_and, 0xF0F0u);
    EXPECT_EQ(e.keys_or, 0xF0FFu);
    EXPECT_EQ(internal_low(area.data(), 1).offset, 9);
    // It allows the keys added and those between them, nothing else.
    EXPECT_TRUE(summary_covers(e, 0xF0F3, 0xF0F3));
    EXPECT_TRUE(summary_covers(e, 0xF0F0, 0xF0FF));
    EXPECT_FALSE(summary_covers(e, 0xF070, 0xF070));   // lacks a bit every key has
    EXPECT_FALSE(summary_covers(e, 0x1F0F0, 0x1F0F0)); // has a bit no key has
    // Every key agrees on all but the four bits where they differ.
    EXPECT_EQ(summary_shared_bits(e.keys_and, e.keys_or), ~std::uint64_t{0x0F});
    // A downlink made without a summary rules out nothing.
    InternalEntry plain{{0, 0, 0}, 1};
    EXPECT_TRUE(summary_covers(plain, 0, ~std::uint64_t{0}));
    // The summary of no key allows none until one is added.
    InternalEntry none{{0, 0, 0}, 1, kNoKeysAnd, kNoKeysOr};
    EXPECT_FALSE(summary_covers(none, 5, 5));
    summary_add(&none, 5, 5);
    EXPECT_TRUE(summary_covers(none, 5, 5));
    EXPECT_FALSE(summary_covers(none, 4, 4));
}
