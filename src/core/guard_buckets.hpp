// The lock buckets of the near-duplicate guard.
//
// Two fingerprints within k bits of each other agree exactly on at least one
// of k + 1 disjoint blocks (pigeonhole: k differing bits touch at most k
// blocks; the split is block_layout.hpp's). The guard locks one bucket per
// block of each row it writes, so two writers of near-duplicates always contend for a common bucket, while rows
// sharing no block never wait for each other.
#pragma once
#include <cstdint>
#include <vector>

namespace simhash {

constexpr int kGuardMaxDistance = 32;

// One advisory lock: `space` scopes it (the guarded table), `bucket` names a
// block value at a block position of one guarded column.
struct GuardLockKey {
    std::uint32_t space;
    std::uint32_t bucket;
    bool operator==(const GuardLockKey &o) const noexcept { return space == o.space && bucket == o.bucket; }
    bool operator<(const GuardLockKey &o) const noexcept {
        return space != o.space ? space < o.space : bucket < o.bucket;
    }
};

// The lock keys of fingerprint `fp` in column `column` of table `space`, for a
// guard of `max_distance` (0..32; Error(invalid_argument) otherwise): sorted
// and without repeats, so every writer takes them in the same order and two
// writers cannot deadlock on one row's buckets.
std::vector<GuardLockKey> guard_lock_keys(std::uint32_t space, int column, std::uint64_t fp, int max_distance);

// One lock to take: exclusive for the buckets of a value being written (two
// writers of near values must not overlap), shared for the buckets of a value
// being kept or removed (writers of a near value wait until we are done, but
// such rows need not wait for each other).
struct GuardLock {
    GuardLockKey key;
    bool exclusive;
};

// The locks of one row change, sorted by key and without repeats (exclusive
// wins where both lists hold a key), so every writer takes them in one order.
std::vector<GuardLock> guard_lock_plan(const std::vector<GuardLockKey> &writes, const std::vector<GuardLockKey> &keeps);

}  // namespace simhash
