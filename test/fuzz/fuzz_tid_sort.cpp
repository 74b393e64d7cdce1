// Fuzzes the scans' TID sort: keys decoded from the input (6 bytes each, so
// every byte position varies or not as the input decides, with runs and
// repeats), each with its position in the top 16 bits, come out in the order
// a stable sort on the low 48 bits gives them; and packed as a plain scan
// packs them (pack_tids), with their positions above, in the same order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tid_sort.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::vector<std::uint64_t> keys;
    for (std::size_t i = 0; i + 6 <= size; i += 6) {
        std::uint64_t k = 0;
        std::memcpy(&k, data + i, 6);
        keys.push_back(k);
    }
    // Short inputs still reach the radix passes: repeated past its threshold,
    // varied in the top byte only, so the bytes the input shares stay shared.
    for (std::size_t n = keys.size(); n > 0 && keys.size() < simhash::index::kTidSortMinRadix;)
        keys.push_back(keys[keys.size() % n] ^ (static_cast<std::uint64_t>(keys.size() / n) << 40));
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] |= static_cast<std::uint64_t>(i & 0xFFFF) << 48;
    std::vector<std::uint64_t> expected = keys, scratch(keys.size());
    std::stable_sort(expected.begin(), expected.end(), [](std::uint64_t a, std::uint64_t b) {
        return (a & simhash::index::kTidSortBits) < (b & simhash::index::kTidSortBits);
    });
    std::vector<std::uint64_t> packed = keys;
    simhash::index::sort_tids(keys.data(), scratch.data(), keys.size(), simhash::index::kTidKeyBits, [] {});
    if (keys != expected) __builtin_trap();

    for (auto &k : packed) k &= simhash::index::kTidSortBits;
    int bits = simhash::index::pack_tids(packed.data(), packed.size(), [] {});
    if (bits < 1 || bits > simhash::index::kTidKeyBits) __builtin_trap();
    for (std::size_t i = 0; i < packed.size(); ++i) {
        if (packed[i] >> bits != 0) __builtin_trap();
        packed[i] |= static_cast<std::uint64_t>(i & 0xFFFF) << bits;
    }
    simhash::index::sort_tids(packed.data(), scratch.data(), packed.size(), bits, [] {});
    for (std::size_t i = 0; i < packed.size(); ++i)
        if (packed[i] >> bits != expected[i] >> simhash::index::kTidKeyBits) __builtin_trap();
    return 0;
}
