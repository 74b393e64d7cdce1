#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "block_layout.hpp"
#include "hamming.hpp"

using namespace simhash;
using namespace simhash::index;

namespace {

// Every index layout: (K, blocks) with at most kMaxTables tables.
template <typename F>
void for_each_index_layout(F f) {
    for (int K = 0; K <= kMaxIndexDistance; ++K)
        for (int blocks = K + 1; blocks <= kMaxIndexBlocks; ++blocks)
            if (index_layout_tables(K, blocks) > 0) f(K, blocks);
}

// Every index layout as a Layout: those of for_each_index_layout, then the
// two-level ones.
template <typename F>
void for_each_layout(F f) {
    for_each_index_layout([&](int K, int blocks) { f(make_layout(K, blocks)); });
    for (int K = 0; K <= kMaxIndexDistance; ++K)
        if (two_level_tables(K) > 0) f(make_two_level_layout(K));
}

// Calls f(set) for every set of `r` of `n` blocks (n <= 64) while f returns true.
template <typename F>
void for_each_subset(int n, int r, F f) {
    std::vector<int> pick(static_cast<std::size_t>(r));
    for (int i = 0; i < r; ++i) pick[static_cast<std::size_t>(i)] = i;
    for (;;) {
        std::uint64_t set = 0;
        for (int b : pick) set |= std::uint64_t{1} << b;
        if (!f(set)) return;
        int i = r - 1;
        while (i >= 0 && pick[static_cast<std::size_t>(i)] == n - r + i) --i;
        if (i < 0) return;
        ++pick[static_cast<std::size_t>(i)];
        for (int j = i + 1; j < r; ++j) pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
    }
}

}  // namespace

TEST(BlockSplit, ContiguousFromTheTopWiderBlocksLast) {
    for (int blocks = 1; blocks <= kMaxBlocks; ++blocks) {
        BlockSplit s = split_blocks(blocks);
        int top = 64;
        for (int b = 0; b < blocks; ++b) {
            EXPECT_EQ(s.shift[b] + s.width[b], top) << blocks << " " << b;
            EXPECT_EQ(s.width[b], 64 / blocks + (b >= blocks - 64 % blocks ? 1 : 0));
            top = s.shift[b];
        }
        EXPECT_EQ(top, 0) << blocks;
    }
    EXPECT_EQ(block_value(split_blocks(4), 0, 0xABCD'0000'0000'1234u), 0xABCDu);
    EXPECT_EQ(block_value(split_blocks(1), 0, 42), 42u);
}

TEST(BlockLayout, OrdersArePermutationsAndTablesAreBinomial) {
    for_each_index_layout([](int K, int blocks) {
        Layout l = make_layout(K, blocks);
        ASSERT_EQ(static_cast<std::size_t>(l.tables), binomial(blocks, K));
        for (int t = 0; t < l.tables; ++t) {
            std::uint64_t seen = 0;
            for (int i = 0; i < blocks; ++i) seen |= std::uint64_t{1} << l.order[t][i];
            ASSERT_EQ(seen, low_bits(blocks)) << K << " " << blocks << " " << t;
            if (blocks == K + 1) {
                ASSERT_EQ(l.order[t][0], t);  // rotations
            }
        }
        Layout back;
        ASSERT_TRUE(stored_layout(K, blocks, l.tables, l.order, l.guaranteed, &back));
        ASSERT_EQ(prefix_bits(back, l.tables - 1, K), prefix_bits(l, l.tables - 1, K));
    });
}

TEST(BlockLayout, KeysAreBijectionsKeepingDistances) {
    std::mt19937_64 rng(7);
    for_each_layout([&](const Layout &l) {
        for (int i = 0; i < 20; ++i) {
            std::uint64_t a = rng(), b = rng();
            for (int t = 0; t < l.tables; ++t) {
                ASSERT_EQ(table_fingerprint(l, t, table_key(l, t, a)), a);
                ASSERT_EQ(hamming_distance(table_key(l, t, a), table_key(l, t, b)), hamming_distance(a, b));
            }
        }
    });
}

// The guarantee the index is exact by, over difference patterns of blocks:
// for every set D of k blocks (exhaustively, or 3,000 random sets where
// there are more), some table's first guaranteed blocks avoid D, those
// blocks are prefix_bits(t, k) bits, and two fingerprints differing by one
// bit in each block of D share that many leading key bits in that table.
TEST(BlockLayout, PigeonholeGuaranteeForEveryLayoutAndRadius) {
    std::mt19937_64 rng(42);
    for_each_layout([&](const Layout &l) {
        const int K = l.max_distance, blocks = l.blocks;
        for (int k = 0; k <= K; ++k) {
            auto check = [&](std::uint64_t set) {
                std::uint64_t a = rng(), b = a;
                for (int blk = 0; blk < blocks; ++blk)
                    if ((set >> blk) & 1) b ^= std::uint64_t{1} << (l.split.shift[blk] + rng() % l.split.width[blk]);
                bool found = false;
                for (int t = 0; t < l.tables && !found; ++t) {
                    int m = l.guaranteed[k];
                    bool avoids = true;
                    for (int i = 0; i < m; ++i) avoids = avoids && !((set >> l.order[t][i]) & 1);
                    if (!avoids) continue;
                    found = true;
                    int bits = 0;
                    for (int i = 0; i < m; ++i) bits += l.split.width[l.order[t][i]];
                    EXPECT_EQ(prefix_bits(l, t, k), bits);
                    KeyRange r = prefix_range(table_key(l, t, a), bits);
                    std::uint64_t kb = table_key(l, t, b);
                    EXPECT_TRUE(r.lo <= kb && kb <= r.hi) << "K=" << K << " blocks=" << blocks << " k=" << k;
                }
                EXPECT_TRUE(found) << "K=" << K << " blocks=" << blocks << " k=" << k << " set=" << set;
                return found;
            };
            if (binomial(blocks, k) <= 20000) {
                for_each_subset(blocks, k, check);
            } else {
                for (int trial = 0; trial < 3000; ++trial) {
                    std::uint64_t set = 0;
                    while (__builtin_popcountll(set) < k) set |= std::uint64_t{1} << (rng() % blocks);
                    if (!check(set)) break;
                }
            }
        }
        EXPECT_EQ(prefix_bits(l, 0, K + 1), 0);  // beyond the layout: no guarantee
        for (int t = 0; t < l.tables; ++t) EXPECT_EQ(prefix_bits(l, t, 0), 64);
    });
}

// B = K + 1 rotations: smaller radii get longer prefixes, as they always did.
TEST(BlockLayout, RotationPrefixesShrinkWithTheRadius) {
    Layout l = make_layout(3, 4);
    EXPECT_EQ(l.tables, 4);
    for (int t = 0; t < 4; ++t) EXPECT_EQ(prefix_bits(l, t, 3), 16);
    EXPECT_EQ(prefix_bits(l, 0, 1), 48);  // three equal consecutive blocks
    EXPECT_EQ(prefix_bits(l, 0, 2), 16);  // two equal blocks, maybe apart
    EXPECT_EQ(prefix_bits(l, 2, 0), 64);
    for (int K = 1; K <= kMaxIndexDistance; ++K) {
        Layout r = make_layout(K, K + 1);
        for (int k = 1; k <= K; ++k)
            for (int t = 0; t <= K; ++t) {
                int bits = 0;
                for (int i = 0; i < (K + 1 - k + k - 1) / k; ++i) bits += r.split.width[(t + i) % (K + 1)];
                ASSERT_EQ(prefix_bits(r, t, k), bits) << K << " " << k << " " << t;
            }
    }
}

TEST(BlockLayout, CombinationLayoutsOfRadiusThree) {
    Layout ten = make_layout(3, 5);
    EXPECT_EQ(ten.tables, 10);
    EXPECT_EQ(min_prefix_bits(ten, 3), 25);
    Layout twenty = make_layout(3, 6);
    EXPECT_EQ(twenty.tables, 20);
    EXPECT_EQ(min_prefix_bits(twenty, 3), 31);
    EXPECT_EQ(index_layout_tables(3, 8), 56);
    EXPECT_EQ(index_layout_tables(3, 9), 0);  // C(9, 3) = 84 tables: too many
    EXPECT_EQ(index_layout_tables(3, 3), 0);  // too few blocks
    EXPECT_EQ(blocks_for_tables(3, 10), 5);
    EXPECT_EQ(blocks_for_tables(3, 4), 4);
    EXPECT_EQ(blocks_for_tables(3, 7), 0);
}

// Manku's 16 tables of 28 bits for K = 3, and their kin for K = 2 and 4.
TEST(BlockLayout, TwoLevelLayouts) {
    EXPECT_EQ(two_level_tables(1), 0);  // the same as the 4 tables of 4 blocks
    EXPECT_EQ(two_level_tables(5), 0);  // 36 blocks: more than the metapage holds
    Layout l = make_two_level_layout(3);
    ASSERT_EQ(l.tables, 16);
    ASSERT_EQ(l.blocks, 16);
    for (int t = 0; t < 16; ++t) EXPECT_EQ(prefix_bits(l, t, 3), 28) << t;
    EXPECT_EQ(prefix_bits(l, 0, 0), 64);
    // Table (1, 2): top block 1 (blocks 4..7), then the third group of three
    // of the blocks outside it (0..3, 8..15): 10, 11, 12.
    const std::uint8_t table6[] = {4, 5, 6, 7, 10, 11, 12, 0, 1, 2, 3, 8, 9, 13, 14, 15};
    for (int i = 0; i < 16; ++i) EXPECT_EQ(l.order[6][i], table6[i]) << i;
    // No single-level layout of the same K has its table count.
    for (int K = kMinTwoLevelDistance; K <= kMaxTwoLevelDistance; ++K) {
        EXPECT_EQ(blocks_for_tables(K, two_level_tables(K)), 0) << K;
        Layout two = make_two_level_layout(K), back;
        ASSERT_TRUE(stored_layout(K, two.blocks, two.tables, two.order, two.guaranteed, &back));
        EXPECT_EQ(min_prefix_bits(back, K), min_prefix_bits(two, K));
    }
    EXPECT_EQ(min_prefix_bits(make_two_level_layout(2), 2), 35);
    EXPECT_EQ(min_prefix_bits(make_two_level_layout(4), 4), 18);  // 10 + 8 narrow 2-bit blocks
}

TEST(BlockLayout, StoredLayoutsAreChecked) {
    Layout l = make_layout(3, 5), out;
    EXPECT_TRUE(stored_layout(3, 5, 10, l.order, l.guaranteed, &out));
    EXPECT_FALSE(stored_layout(3, 5, 65, l.order, l.guaranteed, &out));
    EXPECT_FALSE(stored_layout(3, 3, 10, l.order, l.guaranteed, &out));
    l.order[4][1] = l.order[4][0];  // not a permutation
    EXPECT_FALSE(stored_layout(3, 5, 10, l.order, l.guaranteed, &out));
    l = make_layout(3, 5);
    l.guaranteed[3] = 0;
    EXPECT_FALSE(stored_layout(3, 5, 10, l.order, l.guaranteed, &out));
}

// The size rule: the fewest tables with at most ~500 random prefix matches
// per table and probe.
TEST(BlockLayout, DefaultLayoutGrowsWithTheTable) {
    EXPECT_EQ(default_blocks(3, 0), 4);
    EXPECT_EQ(default_blocks(3, 1e6), 4);
    EXPECT_EQ(default_blocks(3, 3e7), 4);   // 4 tables of 16 bits up to 500 x 2^16 rows
    EXPECT_EQ(default_blocks(3, 4e7), 5);   // then 10 tables of 25 bits
    EXPECT_EQ(default_blocks(3, 1e11), 5);  // 20 tables are past the default's 16
    EXPECT_EQ(default_blocks(0, 1e12), 1);
    EXPECT_EQ(default_blocks(2, 1e9), 3);
    EXPECT_EQ(default_blocks(2, 2e9), 4);   // 6 tables of 32 bits
    EXPECT_EQ(default_blocks(4, 3e6), 6);   // 15 tables of 21 bits
    EXPECT_EQ(default_blocks(6, 1e7), 7);   // 28 tables are past the default's 16
    EXPECT_EQ(default_blocks(32, 1e9), 33);
    for (int K = 0; K <= kMaxIndexDistance; ++K) {
        int last = 0;
        for (double rows = 1; rows < 1e13; rows *= 3) {
            int blocks = default_blocks(K, rows);
            int tables = index_layout_tables(K, blocks);
            ASSERT_GT(tables, 0) << K << " " << rows;
            ASSERT_LE(tables, std::max(kDefaultMaxTables, K + 1));
            ASSERT_GE(tables, last) << K << " " << rows;
            last = tables;
        }
    }
}

TEST(BlockLayout, PrefixRange) {
    KeyRange r = prefix_range(0xABCD'0000'0000'1234u, 16);
    EXPECT_EQ(r.lo, 0xABCD'0000'0000'0000u);
    EXPECT_EQ(r.hi, 0xABCD'FFFF'FFFF'FFFFu);
    EXPECT_EQ(prefix_range(5, 64).lo, 5u);
    EXPECT_EQ(prefix_range(5, 0).hi, ~0ull);
}

TEST(BlockLayout, ProbeFraction) {
    EXPECT_DOUBLE_EQ(plan_scan(make_layout(3, 4), 3, 0).fraction, 4.0 / 65536);
    EXPECT_DOUBLE_EQ(plan_scan(make_layout(3, 5), 3, 0).fraction, 6.0 / (1 << 26) + 4.0 / (1 << 25));
    EXPECT_DOUBLE_EQ(plan_scan(make_layout(3, 4), 4, 0).fraction, 4.0 * 17 / 65536);
    EXPECT_GT(plan_scan(make_layout(32, 33), 32, 0).fraction, 1.0);
}

// The probes' guarantee at every radius, within max_distance and beyond it,
// over difference patterns of blocks (how many bits differ in each): some
// table's first blocks, of probe_shape's bits, hold at most its slack of the
// differences, and two fingerprints differing so show it in that table's
// keys. The patterns: k differences spread evenly from each block, laid one
// at a time into random blocks with room, and, for layouts of at most 5
// blocks up to k = 16, all of them.
TEST(BlockLayout, ProbeShapeFindsEveryPairAtEveryRadius) {
    std::mt19937_64 rng(11);
    for_each_layout([&](const Layout &l) {
        const int B = l.blocks;
        for (int k = 0; k <= 64; ++k) {
            const ProbeShape shape = probe_shape(l, k);
            ASSERT_TRUE(shape.valid) << "K=" << l.max_distance << " blocks=" << B << " k=" << k;
            const int m = l.guaranteed[std::min(k, l.max_distance)];
            auto check = [&](const int *count) {
                std::uint64_t a = rng(), b = a;
                for (int blk = 0; blk < B; ++blk) {
                    const int w = l.split.width[blk], from = static_cast<int>(rng() % w);
                    for (int i = 0; i < count[blk]; ++i) b ^= std::uint64_t{1} << (l.split.shift[blk] + (from + i) % w);
                }
                for (int t = 0; t < l.tables; ++t) {
                    int in_prefix = 0;
                    for (int i = 0; i < m; ++i) in_prefix += count[l.order[t][i]];
                    if (in_prefix > shape.slack) continue;
                    EXPECT_EQ(order_prefix_bits(l.split, l.order[t], m), shape.bits[t]);
                    std::uint64_t x = table_key(l, t, a) ^ table_key(l, t, b);
                    EXPECT_LE(__builtin_popcountll(shape.bits[t] == 0 ? 0 : x >> (64 - shape.bits[t])), shape.slack);
                    return true;
                }
                ADD_FAILURE() << "K=" << l.max_distance << " blocks=" << B << " tables=" << l.tables << " k=" << k;
                return false;
            };
            int count[kMaxIndexBlocks];
            for (int start = 0; start < B; ++start) {
                std::fill(count, count + B, 0);
                for (int placed = 0, blk = start; placed < k; blk = (blk + 1) % B)
                    if (count[blk] < l.split.width[blk]) count[blk]++, placed++;
                if (!check(count)) return;
            }
            for (int trial = 0; trial < 40; ++trial) {
                std::fill(count, count + B, 0);
                for (int placed = 0; placed < k;) {
                    int blk = static_cast<int>(rng() % B);
                    if (count[blk] < l.split.width[blk]) count[blk]++, placed++;
                }
                if (!check(count)) return;
            }
            if (B > 5 || k > 16) continue;
            // Every pattern: count[] as a mixed-radix number.
            std::fill(count, count + B, 0);
            for (bool more = true; more;) {
                int sum = 0;
                for (int blk = 0; blk < B; ++blk) sum += count[blk];
                if (sum == k && !check(count)) return;
                more = false;
                for (int blk = 0; blk < B && !more; ++blk) {
                    if (count[blk] < std::min<int>(l.split.width[blk], k)) {
                        count[blk]++;
                        more = true;
                    } else {
                        count[blk] = 0;
                    }
                }
            }
        }
    });
}

TEST(BlockLayout, ProbeShapeBeyondMaxDistance) {
    Layout l = make_layout(3, 4);  // 4 rotations of 16-bit blocks
    for (int k = 0; k <= 3; ++k) EXPECT_EQ(probe_shape(l, k).slack, 0);
    EXPECT_EQ(probe_shape(l, 3).bits[0], 16);
    EXPECT_EQ(probe_shape(l, 1).bits[0], 48);
    for (int k = 4; k <= 7; ++k) {
        EXPECT_EQ(probe_shape(l, k).slack, 1);
        EXPECT_EQ(probe_shape(l, k).bits[2], 16);
    }
    EXPECT_EQ(probe_shape(l, 8).slack, 2);
    EXPECT_EQ(probe_shape(make_layout(3, 5), 5).slack, 2);  // 2 of 5 blocks: 25 or 26 bits
    EXPECT_EQ(probe_shape(make_layout(3, 5), 5).bits[0], 25);
    EXPECT_EQ(probe_shape(make_two_level_layout(3), 4).slack, 1);  // 28 bits
    EXPECT_EQ(probe_shape(make_two_level_layout(3), 8).slack, 3);
}

TEST(BlockLayout, VariantRangesAreThePrefixesWithinTheSlack) {
    std::mt19937_64 rng(5);
    for (int bits = 1; bits <= 10; ++bits)
        for (int slack = 0; slack <= 4; ++slack) {
            const std::uint64_t key = rng();
            const std::size_t n = prefix_variants(bits, slack);
            std::vector<KeyRange> got(n);
            variant_ranges(key, bits, slack, got.data());
            std::vector<KeyRange> want;
            const std::uint64_t own = key >> (64 - bits);
            for (std::uint64_t p = 0; p < (std::uint64_t{1} << bits); ++p)
                if (__builtin_popcountll(p ^ own) <= slack) want.push_back(prefix_range(p << (64 - bits), bits));
            ASSERT_EQ(got.size(), want.size()) << bits << " " << slack;
            for (std::size_t i = 0; i < n; ++i) {
                EXPECT_EQ(got[i].lo, want[i].lo) << bits << " " << slack << " " << i;
                EXPECT_EQ(got[i].hi, want[i].hi) << bits << " " << slack << " " << i;
            }
        }
    EXPECT_EQ(prefix_variants(16, 1), 17u);
    EXPECT_EQ(prefix_variants(16, 2), 137u);
    EXPECT_EQ(prefix_variants(3, 5), 8u);
    KeyRange whole[1];
    variant_ranges(42, 64, 0, whole);
    EXPECT_EQ(whole[0].lo, 42u);
    EXPECT_EQ(whole[0].hi, 42u);
}

TEST(BlockLayout, PlanScanProbesWhileCheaperThanASweep) {
    Layout l = make_layout(3, 4);
    const double leaves = 1200;  // 1M random rows
    EXPECT_FALSE(plan_scan(l, 3, leaves).sweep);
    EXPECT_EQ(plan_scan(l, 3, leaves).probes, 4u);
    EXPECT_FALSE(plan_scan(l, 3, 1).sweep);  // within max_distance: the probes, however small
    ScanPlan six = plan_scan(l, 6, leaves);
    EXPECT_FALSE(six.sweep);
    EXPECT_EQ(six.probes, 68u);
    EXPECT_DOUBLE_EQ(six.fraction, 68.0 / 65536);
    EXPECT_FALSE(plan_scan(l, 11, leaves).sweep);
    EXPECT_EQ(plan_scan(l, 11, leaves).probes, 548u);
    EXPECT_TRUE(plan_scan(l, 12, leaves).sweep);
    EXPECT_FALSE(plan_scan(l, 6, 141).sweep);  // 110,000 rows
    EXPECT_TRUE(plan_scan(l, 8, 141).sweep);
    EXPECT_TRUE(plan_scan(l, 6, 20).sweep);  // a small index: one sweep reads less
    EXPECT_TRUE(plan_scan(make_layout(32, 33), 32, 1e6).sweep);
    // 10 tables of 25-26 bits at k = 8: slack 3, 29,530 probes covering 0.1%
    // of a table, more than kMaxProbes however large the index.
    ScanPlan many = plan_scan(make_layout(3, 5), 8, 1e12);
    EXPECT_GT(many.probes, kMaxProbes);
    EXPECT_LT(many.fraction, 0.01);
    EXPECT_TRUE(many.sweep);
    EXPECT_TRUE(plan_scan(l, 65, 1e9).sweep);  // outside 0..64
    EXPECT_FALSE(probe_shape(l, -1).valid);
}

// Beyond max_distance a stored layout is probed only if its orders give the
// guarantee: a permutation of the default's tables still does, a layout in
// which two tables lead with the same block does not.
TEST(BlockLayout, ProbesBeyondMaxDistanceNeedEveryBlockSetLeading) {
    Layout l = make_layout(3, 4);
    EXPECT_TRUE(probe_shape(l, 6).valid);
    std::swap(l.order[0], l.order[2]);
    EXPECT_TRUE(probe_shape(l, 6).valid);
    std::copy(l.order[0], l.order[0] + l.blocks, l.order[1]);
    EXPECT_FALSE(probe_shape(l, 6).valid);
    EXPECT_TRUE(plan_scan(l, 6, 1e6).sweep);
    EXPECT_TRUE(probe_shape(l, 3).valid);  // within max_distance: as stored
    Layout two = make_two_level_layout(3);
    EXPECT_TRUE(probe_shape(two, 5).valid);
    std::swap(two.order[0][10], two.order[0][11]);
    EXPECT_FALSE(probe_shape(two, 5).valid);
}

// A later probe skips subtrees on an earlier probe's prefix once the keys it
// reads reveal that prefix whole: for single-level layouts, one block beyond
// the probe's own prefix; for every layout, no later than in forward or
// backward table order.
TEST(BlockLayout, ProbeOrderPutsEarlierPrefixesNextInLaterKeys) {
    auto blocks_of = [](const Layout &l, int t, int n) {
        std::uint64_t set = 0;
        for (int i = 0; i < n; ++i) set |= std::uint64_t{1} << l.order[t][i];
        return set;
    };
    // Blocks beyond probe i's own prefix its key reveals before some earlier prefix is whole.
    auto reveal = [&](const Layout &l, const int *order, int i) {
        const int m = l.guaranteed[l.max_distance];
        for (int extra = 0; m + extra <= l.blocks; ++extra)
            for (int j = 0; j < i; ++j)
                if ((blocks_of(l, order[j], m) & ~blocks_of(l, order[i], m + extra)) == 0) return extra;
        return l.blocks;
    };
    auto total = [&](const Layout &l, const int *order) {
        int sum = 0;
        for (int i = 1; i < l.tables; ++i) sum += reveal(l, order, i);
        return sum;
    };
    std::vector<Layout> layouts;
    for (int k = 1; k <= kMaxIndexDistance; ++k)
        for (int blocks = k + 1; blocks <= kMaxIndexBlocks; ++blocks)
            if (index_layout_tables(k, blocks) > 0) layouts.push_back(make_layout(k, blocks));
    const std::size_t single_level = layouts.size();
    for (int k = kMinTwoLevelDistance; k <= kMaxTwoLevelDistance; ++k) layouts.push_back(make_two_level_layout(k));
    for (std::size_t n = 0; n < layouts.size(); ++n) {
        const Layout &l = layouts[n];
        int order[kMaxTables], forward[kMaxTables], backward[kMaxTables];
        probe_order(l, order);
        std::uint64_t seen = 0;
        for (int i = 0; i < l.tables; ++i) {
            seen |= std::uint64_t{1} << order[i];
            forward[i] = i;
            backward[i] = l.tables - 1 - i;
        }
        EXPECT_EQ(seen, l.tables == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << l.tables) - 1);
        EXPECT_LE(total(l, order), total(l, forward)) << "k " << l.max_distance << " blocks " << l.blocks;
        EXPECT_LE(total(l, order), total(l, backward)) << "k " << l.max_distance << " blocks " << l.blocks;
        if (n < single_level) {
            for (int i = 1; i < l.tables; ++i)
                EXPECT_LE(reveal(l, order, i), 1) << "k " << l.max_distance << " blocks " << l.blocks << " probe " << i;
        }
    }
}
