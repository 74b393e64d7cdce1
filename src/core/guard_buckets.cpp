#include "guard_buckets.hpp"

#include <algorithm>
#include <string>

#include "error.hpp"
#include "hamming.hpp"

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

GuardBlock guard_block(int max_distance, int index) {
    check_distance(max_distance);
    const int blocks = max_distance + 1;
    if (index < 0 || index >= blocks)
        throw Error(Error::Kind::invalid_argument, "block index " + std::to_string(index) + " is out of range");
    const int base = kBits / blocks;
    const int wide = kBits % blocks;
    const int begin = index * base + std::min(index, wide);
    return GuardBlock{begin, base + (index < wide ? 1 : 0)};
}

std::vector<GuardLockKey> guard_lock_keys(std::uint32_t space, int column, std::uint64_t fp, int max_distance) {
    check_distance(max_distance);
    std::vector<GuardLockKey> keys;
    keys.reserve(static_cast<std::size_t>(max_distance) + 1);
    for (int i = 0; i <= max_distance; ++i) {
        const GuardBlock b = guard_block(max_distance, i);
        const std::uint64_t mask = b.width == kBits ? ~0ULL : ((1ULL << b.width) - 1);
        const std::uint64_t value = (fp >> b.begin) & mask;
        // The position and the radius are part of the bucket: equal values at
        // different positions are unrelated.
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
