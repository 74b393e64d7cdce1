// Fuzzes the guard's pigeonhole: any two fingerprints within k bits must share
// a lock bucket, every key list must be sorted and repeat-free, and a row
// change's lock plan must be ordered with the right modes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "error.hpp"
#include "guard_buckets.hpp"
#include "hamming.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 18) return 0;
    std::uint64_t a, flips;
    std::memcpy(&a, data, 8);
    std::memcpy(&flips, data + 8, 8);
    const int raw_k = static_cast<std::int8_t>(data[16]);
    const std::uint32_t space = data[17];
    std::vector<simhash::GuardLockKey> ka;
    try {
        ka = simhash::guard_lock_keys(space, 1, a, raw_k);
    } catch (const simhash::Error &) {
        if (raw_k >= 0 && raw_k <= simhash::kGuardMaxDistance) __builtin_trap();
        return 0;
    }
    if (raw_k < 0 || raw_k > simhash::kGuardMaxDistance) __builtin_trap();
    if (!std::is_sorted(ka.begin(), ka.end()) || std::adjacent_find(ka.begin(), ka.end()) != ka.end())
        __builtin_trap();
    if (ka.empty() || ka.size() > static_cast<std::size_t>(raw_k) + 1) __builtin_trap();
    // Keep only up to k of the flip bits so b is within k of a.
    std::uint64_t mask = 0;
    for (int i = 0; i < 64 && __builtin_popcountll(mask) < raw_k; ++i)
        if (flips >> i & 1) mask |= 1ULL << i;
    const std::uint64_t b = a ^ mask;
    auto kb = simhash::guard_lock_keys(space, 1, b, raw_k);
    bool shared = false;
    for (const auto &k : ka)
        if (std::binary_search(kb.begin(), kb.end(), k)) shared = true;
    if (!shared) __builtin_trap();
    // An UPDATE from a to b: one lock per key, in strictly increasing order,
    // exclusive exactly for the keys of the value written.
    auto plan = simhash::guard_lock_plan(kb, ka);
    for (std::size_t i = 0; i < plan.size(); ++i) {
        if (i > 0 && !(plan[i - 1].key < plan[i].key)) __builtin_trap();
        if (plan[i].exclusive != std::binary_search(kb.begin(), kb.end(), plan[i].key)) __builtin_trap();
        if (!plan[i].exclusive && !std::binary_search(ka.begin(), ka.end(), plan[i].key)) __builtin_trap();
    }
    return 0;
}
