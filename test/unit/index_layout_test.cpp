#include <gtest/gtest.h>

#include <random>

#include "hamming.hpp"
#include "index_layout.hpp"

using namespace simhash::index;

TEST(IndexLayout, BlocksCoverAllBits) {
    for (int K = 0; K <= kMaxIndexDistance; ++K) {
        Layout l = make_layout(K);
        ASSERT_EQ(l.tables, K + 1);
        int sum = 0;
        for (int t = 0; t < l.tables; ++t) {
            EXPECT_EQ(l.start[t], sum);
            sum += l.width[t];
        }
        EXPECT_EQ(sum, 64) << K;
    }
}

TEST(IndexLayout, DefaultIsFourTablesOfSixteenBits) {
    Layout l = make_layout(3);
    EXPECT_EQ(l.tables, 4);
    for (int t = 0; t < 4; ++t) EXPECT_EQ(prefix_bits(l, t, 3), 16);
    EXPECT_EQ(prefix_bits(l, 0, 1), 48);  // three equal consecutive blocks
    EXPECT_EQ(prefix_bits(l, 0, 2), 16);  // two equal blocks, maybe apart
    EXPECT_EQ(prefix_bits(l, 2, 0), 64);
    EXPECT_EQ(prefix_bits(l, 0, 4), 0);   // beyond the layout: no guarantee
}

TEST(IndexLayout, RotationRoundTrips) {
    Layout l = make_layout(6);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 1000; ++i) {
        std::uint64_t fp = rng();
        for (int t = 0; t < l.tables; ++t) EXPECT_EQ(table_fingerprint(l, t, table_key(l, t, fp)), fp);
    }
    EXPECT_EQ(table_key(l, 1, std::uint64_t{1} << 53), std::uint64_t{1} << 63);
}

TEST(IndexLayout, PrefixRange) {
    KeyRange r = prefix_range(0xABCD'0000'0000'1234u, 16);
    EXPECT_EQ(r.lo, 0xABCD'0000'0000'0000u);
    EXPECT_EQ(r.hi, 0xABCD'FFFF'FFFF'FFFFu);
    EXPECT_EQ(prefix_range(5, 64).lo, 5u);
    EXPECT_EQ(prefix_range(5, 0).hi, ~0ull);
}

// The guarantee the index is exact by: brute force on adversarial flips.
TEST(IndexLayout, PigeonholeGuarantee) {
    std::mt19937_64 rng(42);
    for (int K = 0; K <= kMaxIndexDistance; ++K) {
        Layout l = make_layout(K);
        for (int k = 0; k <= K; ++k) {
            for (int trial = 0; trial < 300; ++trial) {
                std::uint64_t a = rng(), b = a;
                for (int f = 0; f < k; ++f) b ^= std::uint64_t{1} << (rng() % 64);
                ASSERT_LE(simhash::hamming_distance(a, b), k);
                bool found = false;
                for (int t = 0; t < l.tables && !found; ++t) {
                    int p = prefix_bits(l, t, k);
                    KeyRange r = prefix_range(table_key(l, t, a), p);
                    std::uint64_t kb = table_key(l, t, b);
                    found = r.lo <= kb && kb <= r.hi;
                }
                ASSERT_TRUE(found) << "K=" << K << " k=" << k;
            }
        }
    }
}

TEST(IndexLayout, ProbeFraction) {
    EXPECT_DOUBLE_EQ(probe_fraction(make_layout(3), 3), 4.0 / 65536);
    EXPECT_TRUE(std::isinf(probe_fraction(make_layout(3), 4)));
    EXPECT_GT(probe_fraction(make_layout(32), 32), 1.0);
}
