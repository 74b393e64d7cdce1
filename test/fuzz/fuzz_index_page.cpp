// Fuzzes the internal page codec on arbitrary bytes (a corrupt page is
// untrusted input to simhash_index_check): the checker never reads out of
// bounds, and a lookup in an internal page it accepts lands on the right
// child. Leaves: fuzz_leaf_codec.
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
