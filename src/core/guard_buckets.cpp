#include "guard_buckets.hpp"

#include <algorithm>
#include <string>

#include "block_layout.hpp"
#include "error.hpp"

namespace simhash {

namespace {

// splitmix64's finaliser: spreads (column, position, value) over 32 bits so
// distinct buckets rarely share a lock. A shared lock only makes two writers
// wait for each other; it never lets a near-duplicate through.
std::uint64_t mix(std::uint64_t x) noexcept {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void check_distance(int max_distance) {
    if (max_distance < 0 || max_distance > kGuardMaxDistance)
        throw Error(Error::Kind::invalid_argument,
                    "maximum distance " + std::to_string(max_distance) + " is out of range (0.." +
                        std::to_string(kGuardMaxDistance) + ")");
}

}  // namespace

std::vector<GuardLockKey> guard_lock_keys(std::uint32_t space, int column, std::uint64_t fp, int max_distance) {
    check_distance(max_distance);
    std::vector<GuardLockKey> keys;
    keys.reserve(static_cast<std::size_t>(max_distance) + 1);
    const BlockSplit split = split_blocks(max_distance + 1);
    for (int b = 0; b <= max_distance; ++b) {
        const std::uint64_t value = block_value(split, b, fp);
        // The position and the radius are part of the bucket: equal values at
        // different positions are unrelated. Positions count from the least
        // significant block, as they always have: backends still running an
        // older build of the library compute the same buckets.
        const int i = max_distance - b;
        std::uint64_t h = mix(value);
        h = mix(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(column)) << 16) ^
                (static_cast<std::uint64_t>(i) << 8) ^ static_cast<std::uint64_t>(max_distance));
        keys.push_back(GuardLockKey{space, static_cast<std::uint32_t>(h ^ (h >> 32))});
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

std::vector<GuardLock> guard_lock_plan(const std::vector<GuardLockKey> &writes, const std::vector<GuardLockKey> &keeps) {
    std::vector<GuardLock> plan;
    plan.reserve(writes.size() + keeps.size());
    for (const auto &k : writes) plan.push_back(GuardLock{k, true});
    for (const auto &k : keeps) plan.push_back(GuardLock{k, false});
    std::sort(plan.begin(), plan.end(), [](const GuardLock &a, const GuardLock &b) {
        return a.key == b.key ? a.exclusive > b.exclusive : a.key < b.key;
    });
    plan.erase(std::unique(plan.begin(), plan.end(), [](const GuardLock &a, const GuardLock &b) { return a.key == b.key; }),
               plan.end());
    return plan;
}

}  // namespace simhash
