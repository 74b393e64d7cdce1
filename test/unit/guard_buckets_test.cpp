#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "block_layout.hpp"
#include "error.hpp"
#include "guard_buckets.hpp"
#include "hamming.hpp"

using simhash::guard_lock_keys;
using simhash::GuardLockKey;

static bool share_key(const std::vector<GuardLockKey> &a, const std::vector<GuardLockKey> &b) {
    for (const auto &x : a)
        if (std::binary_search(b.begin(), b.end(), x)) return true;
    return false;
}

// The buckets are what earlier builds of the library computed: a backend still
// running one must contend with this build for the same near-duplicates.
TEST(GuardBuckets, KeysAreStableAcrossBuilds) {
    std::uint64_t h = 1469598103934665603ULL, fp = 0x0123456789abcdefULL;
    for (int k = 0; k <= simhash::kGuardMaxDistance; ++k)
        for (int column = 1; column <= 3; ++column) {
            fp = fp * 6364136223846793005ULL + 1442695040888963407ULL;
            for (const auto &x : guard_lock_keys(7, column, fp, k)) {
                h = (h ^ x.bucket) * 1099511628211ULL;
                h = (h ^ x.space) * 1099511628211ULL;
            }
        }
    EXPECT_EQ(h, 7271927636841086144ULL);
}

TEST(GuardBuckets, KeysAreSortedDistinctAndOnePerBlock) {
    auto keys = guard_lock_keys(16384, 2, 0x0123456789abcdefULL, 3);
    EXPECT_EQ(keys.size(), 4u);
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end());
    for (const auto &k : keys) EXPECT_EQ(k.space, 16384u);
    // Every block of zero has the value 0: only the block position tells them apart.
    EXPECT_EQ(guard_lock_keys(1, 1, 0, 7).size(), 8u);
}

TEST(GuardBuckets, SameInputSameKeys) {
    EXPECT_EQ(guard_lock_keys(7, 3, 42, 5), guard_lock_keys(7, 3, 42, 5));
}

TEST(GuardBuckets, ScopeChangesKeys) {
    auto base = guard_lock_keys(7, 3, 42, 3);
    EXPECT_FALSE(share_key(base, guard_lock_keys(8, 3, 42, 3)));  // another table
    EXPECT_FALSE(share_key(base, guard_lock_keys(7, 4, 42, 3)));  // another column
}

// The guarantee the locking rests on: within k implies a common bucket.
TEST(GuardBuckets, NearDuplicatesAlwaysShareABucket) {
    std::mt19937_64 rng(12345);
    for (int k = 0; k <= simhash::kGuardMaxDistance; ++k) {
        for (int trial = 0; trial < 2000; ++trial) {
            std::uint64_t a = rng();
            std::uint64_t b = a;
            int flips = static_cast<int>(rng() % (k + 1));
            for (int f = 0; f < flips; ++f) b ^= 1ULL << (rng() % 64);
            ASSERT_LE(simhash::hamming_distance(a, b), k);
            ASSERT_TRUE(share_key(guard_lock_keys(1, 1, a, k), guard_lock_keys(1, 1, b, k)))
                << std::hex << a << " " << b << " k=" << std::dec << k;
        }
    }
}

// Rows that differ in every block take disjoint locks (no table-wide serialisation).
TEST(GuardBuckets, RowsDifferingInEveryBlockShareNoBucket) {
    std::mt19937_64 rng(7);
    int shared = 0;
    for (int trial = 0; trial < 10000; ++trial) {
        std::uint64_t a = rng();
        std::uint64_t b = rng();
        bool some_block_equal = false;
        const simhash::BlockSplit split = simhash::split_blocks(4);
        for (int i = 0; i <= 3; ++i)
            if (simhash::block_value(split, i, a ^ b) == 0) some_block_equal = true;
        if (!some_block_equal && share_key(guard_lock_keys(1, 1, a, 3), guard_lock_keys(1, 1, b, 3))) ++shared;
    }
    EXPECT_LE(shared, 2);  // only 32-bit hash collisions, about 16 / 2^32 per pair
}

TEST(GuardBuckets, DistanceOutOfRangeIsRejected) {
    EXPECT_THROW(guard_lock_keys(1, 1, 0, -1), simhash::Error);
    EXPECT_THROW(guard_lock_keys(1, 1, 0, 33), simhash::Error);
    EXPECT_NO_THROW(guard_lock_keys(1, 1, 0, 32));
}

TEST(GuardBuckets, LockPlanIsSortedDistinctAndExclusiveWins) {
    auto written = guard_lock_keys(1, 1, 0x1111, 3);
    auto kept = guard_lock_keys(1, 1, 0x1112, 3);  // shares the three upper blocks
    auto plan = simhash::guard_lock_plan(written, kept);
    ASSERT_EQ(plan.size(), 5u);
    for (std::size_t i = 1; i < plan.size(); ++i) EXPECT_TRUE(plan[i - 1].key < plan[i].key);
    int exclusive = 0;
    for (const auto &l : plan) {
        bool in_written = std::binary_search(written.begin(), written.end(), l.key);
        EXPECT_EQ(l.exclusive, in_written);
        exclusive += l.exclusive;
    }
    EXPECT_EQ(exclusive, 4);
    // Only kept keys: all shared.
    for (const auto &l : simhash::guard_lock_plan({}, kept)) EXPECT_FALSE(l.exclusive);
    EXPECT_TRUE(simhash::guard_lock_plan({}, {}).empty());
}
