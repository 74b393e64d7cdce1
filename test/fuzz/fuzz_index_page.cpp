// Fuzzes the page entry codecs on arbitrary bytes (a corrupt page is
// untrusted input to simhash_index_check): the checkers never read out of
// bounds; leaf_near selects exactly the entries within a radius; a leaf split
// keeps every entry and separates the halves; a lookup in an internal page
// the checker accepts lands on the right child.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "index_page.hpp"

using namespace simhash::index;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 1) return 0;
    std::vector<std::uint8_t> bytes(data + 1, data + size);
    const EntryKey low{0, 0, 0};
    // A high bound and a probe key from the first bytes, zero-padded.
    std::uint8_t head[kLeafEntrySize] = {};
    if (!bytes.empty()) std::memcpy(head, bytes.data(), std::min(bytes.size(), sizeof(head)));
    const EntryKey high = leaf_get(head, 0);
    std::size_t bad;

    std::size_t n_leaf = bytes.size() / kLeafEntrySize;
    leaf_keys_within(bytes.data(), n_leaf, low, data[0] & 1, high, &bad);
    {
        // leaf_near returns, in order, exactly the entries within the radius.
        int radius = static_cast<int>(data[0] % 66) - 1;
        std::vector<std::uint16_t> near(n_leaf);
        std::size_t m = leaf_near(bytes.data(), n_leaf, high.key, radius, near.data()), j = 0;
        for (std::size_t i = 0; i < n_leaf; ++i)
            if (__builtin_popcountll(leaf_get(bytes.data(), i).key ^ high.key) <= radius)
                if (j >= m || near[j++] != i) __builtin_trap();
        if (j != m) __builtin_trap();
    }
    if (n_leaf >= 2) {
        std::vector<std::uint8_t> left(bytes.begin(), bytes.begin() + n_leaf * kLeafEntrySize);
        std::vector<std::uint8_t> right(n_leaf * kLeafEntrySize);
        std::vector<EntryKey> scratch(n_leaf), before(n_leaf), after;
        for (std::size_t i = 0; i < n_leaf; ++i) before[i] = leaf_get(left.data(), i);
        std::size_t nl, nr;
        EntryKey sep = leaf_split(left.data(), n_leaf, right.data(), scratch.data(), &nl, &nr);
        if (nl + nr != n_leaf || nl == 0 || nr == 0) __builtin_trap();
        for (std::size_t i = 0; i < nl; ++i) {
            if (compare_keys(leaf_get(left.data(), i), sep) > 0) __builtin_trap();
            after.push_back(leaf_get(left.data(), i));
        }
        for (std::size_t i = 0; i < nr; ++i) {
            if (key_less(leaf_get(right.data(), i), sep)) __builtin_trap();
            after.push_back(leaf_get(right.data(), i));
        }
        std::sort(before.begin(), before.end(), key_less);
        for (std::size_t i = 0; i < n_leaf; ++i)
            if (compare_keys(before[i], after[i]) != 0) __builtin_trap();
    }

    std::size_t n_int = bytes.size() / kInternalEntrySize;
    if (n_int > 0) {
        EntryKey first = internal_get(bytes.data(), 0).low;
        if (internal_sorted_within(bytes.data(), n_int, first, false, low, &bad)) {
            EntryKey probe = high;
            probe.key ^= data[0];
            std::size_t i = internal_find(bytes.data(), n_int, probe);
            if (i >= n_int) __builtin_trap();
            if (!key_less(probe, first)) {
                if (key_less(probe, internal_get(bytes.data(), i).low)) __builtin_trap();
                if (i + 1 < n_int && !key_less(probe, internal_get(bytes.data(), i + 1).low)) __builtin_trap();
            }
        }
    }
    return 0;
}
