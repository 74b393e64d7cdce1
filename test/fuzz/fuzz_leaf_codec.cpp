// Fuzzes the packed leaf codec two ways. Entries decoded from the input
// (keys narrowed to a shared prefix by the first byte, so every width occurs)
// are written as a segment plus a tail (its second half appended as an
// insert appends, key summary first): they read back unchanged, the
// checker accepts them, near() equals a brute-force filter in every form the
// CPU runs (and get() with a cursor decodes its positions), contains() finds
// each and tells the entries next to them apart, and a split keeps every entry on the right side of its separator.
// The raw input as leaf bytes (a corrupt page is untrusted input to
// simhash_index_check): the checker never reads out of bounds, and whatever
// it accepts obeys near() and contains() as above. (Random bytes rarely hold
// the exact key summary of their entries, so it is written in first when the
// header is sound: else the checker would reject nearly every input there.)
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "leaf_codec.hpp"

using namespace simhash::index;

namespace {

std::vector<EntryKey> every_entry(const Leaf &leaf) {
    std::vector<EntryKey> all(leaf.size());
    leaf.unpack(all.data());
    return all;
}

void check_near(const Leaf &leaf, std::uint64_t lo, std::uint64_t hi, std::uint64_t q, int radius) {
    std::vector<EntryKey> all = every_entry(leaf);
    std::vector<std::uint16_t> out(all.size() + 1);
    for (SweepForm form : kSweepForms) {
        if (!sweep_form_supported(form)) continue;
        std::size_t m = leaf.near(lo, hi, q, radius, out.data(), form), j = 0;
        for (std::size_t i = 0; i < all.size(); ++i)
            if (lo <= hi && all[i].key >= lo && all[i].key <= hi && __builtin_popcountll(all[i].key ^ q) <= radius)
                if (j >= m || out[j++] != i) __builtin_trap();
        if (j != m) __builtin_trap();
        std::size_t cursor = 0;
        for (std::size_t k = 0; k < m; ++k)
            if (compare_keys(leaf.get(out[k], &cursor), all[out[k]]) != 0) __builtin_trap();
    }
    for (const EntryKey &e : all)
        if (!leaf.contains(e)) __builtin_trap();
    // The entries next to each, by TID: contains() says whether they are there.
    std::vector<EntryKey> sorted = all;
    std::sort(sorted.begin(), sorted.end(), key_less);
    for (const EntryKey &e : all)
        for (EntryKey n : {EntryKey{e.key, e.block, static_cast<std::uint16_t>(e.offset + 1)},
                           EntryKey{e.key, e.block + 1, e.offset}, EntryKey{e.key + 1, e.block, e.offset}})
            if (leaf.contains(n) != std::binary_search(sorted.begin(), sorted.end(), n, key_less)) __builtin_trap();
}

void check_split(const Leaf &leaf, const std::uint8_t *area, std::size_t bytes, std::size_t limit) {
    std::size_t n = leaf.size();
    if (n < 2) return;
    std::vector<EntryKey> scratch(2 * n), before = every_entry(leaf);
    std::vector<std::uint8_t> left(bytes + 64 * n + kLeafReadSlack), right(left.size());
    LeafSplit s;
    if (!leaf_split(area, bytes, limit, left.size() - kLeafReadSlack, scratch.data(), left.data(), right.data(), &s))
        return;
    std::size_t bad;
    if (leaf_check(left.data(), s.left_bytes, {0, 0, 0}, true, s.separator, &bad) != nullptr) __builtin_trap();
    if (leaf_check(right.data(), s.right_bytes, s.separator, false, {}, &bad) != nullptr) __builtin_trap();
    std::vector<EntryKey> after = every_entry(Leaf(left.data(), s.left_bytes)), r = every_entry(Leaf(right.data(), s.right_bytes));
    if (after.empty() || r.empty()) __builtin_trap();
    after.insert(after.end(), r.begin(), r.end());
    std::sort(before.begin(), before.end(), key_less);
    std::sort(after.begin(), after.end(), key_less);
    if (after.size() != before.size()) __builtin_trap();
    for (std::size_t i = 0; i < after.size(); ++i)
        if (compare_keys(after[i], before[i]) != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 2) return 0;
    const int shared = data[0] % 65;      // leading key bits forced equal
    const int radius = data[1] % 66 - 1;  // -1 .. 64
    const std::uint8_t *body = data + 2;
    std::size_t len = std::min<std::size_t>(size - 2, 60000);  // positions are 16-bit

    // Entries from the input.
    std::size_t n = std::min<std::size_t>(len / kLeafEntrySize, 2000);
    std::vector<EntryKey> entries(n);
    const std::uint64_t keep = shared == 0 ? 0 : ~std::uint64_t{0} << (64 - shared);
    std::uint64_t base = n > 0 ? leaf_get(body, 0).key : 0;
    for (std::size_t i = 0; i < n; ++i) {
        entries[i] = leaf_get(body, i);
        entries[i].key = (base & keep) | (entries[i].key & ~keep);
    }
    std::size_t ntail = n == 0 ? 0 : data[1] % (n + 1), nappend = ntail / 2;
    std::sort(entries.begin(), entries.end() - ntail, key_less);
    std::vector<std::uint8_t> area(kPackedHeaderSize + n * kLeafEntrySize + kLeafReadSlack, 0xA5);
    std::size_t bytes =
        leaf_write(entries.data(), n - ntail, entries.data() + n - ntail, ntail - nappend, area.data());
    for (std::size_t i = n - nappend; i < n; ++i) {
        leaf_summarize_append(area.data(), bytes, entries[i].key);
        leaf_put(area.data() + bytes, 0, entries[i]);
        bytes += kLeafEntrySize;
    }
    PackSizer sizer;
    for (std::size_t i = 0; i + ntail < n; ++i) sizer.add(entries[i]);
    if (sizer.bytes() + ntail * kLeafEntrySize != bytes) __builtin_trap();
    {
        Leaf leaf(area.data(), bytes);
        if (leaf.size() != n) __builtin_trap();
        for (std::size_t i = 0; i < n; ++i)
            if (compare_keys(leaf.get(i), entries[i]) != 0) __builtin_trap();
        std::vector<EntryKey> sorted = entries;
        std::sort(sorted.begin(), sorted.end(), key_less);
        bool distinct = std::adjacent_find(sorted.begin(), sorted.end(), [](const EntryKey &a, const EntryKey &b) {
                            return compare_keys(a, b) == 0;
                        }) == sorted.end();
        std::size_t bad;
        if (distinct && leaf_check(area.data(), bytes, {0, 0, 0}, false, {}, &bad) != nullptr) __builtin_trap();
        std::uint64_t q = base ^ (std::uint64_t{data[0]} << 3), lo = base & keep;
        check_near(leaf, 0, ~std::uint64_t{0}, q, radius);
        check_near(leaf, lo, lo | ~keep, q, radius);
        // A range that starts and ends inside the segment, as a probe's does.
        if (std::size_t np = leaf.packed_count(); np > 2)
            check_near(leaf, leaf.get(np / 3).key, leaf.get(2 * np / 3).key, q, radius);
        if (distinct) check_split(leaf, area.data(), bytes, sizer.bytes() / 2 + kPackedHeaderSize);
    }

    // The raw input as a leaf.
    std::vector<std::uint8_t> raw(len + kLeafReadSlack);
    std::memcpy(raw.data(), body, len);
    if (leaf_header_problem(raw.data(), len) == nullptr) {
        std::vector<EntryKey> all = every_entry(Leaf(raw.data(), len));
        std::uint64_t keys_and = all.empty() ? 0 : ~std::uint64_t{0}, keys_or = 0;
        for (const EntryKey &e : all) {
            keys_and &= e.key;
            keys_or |= e.key;
        }
        std::memcpy(raw.data() + kSummaryOffset, &keys_and, 8);
        std::memcpy(raw.data() + kSummaryOffset + 8, &keys_or, 8);
    }
    std::size_t bad;
    if (leaf_check(raw.data(), len, {0, 0, 0}, false, {}, &bad) == nullptr) {
        Leaf leaf(raw.data(), len);
        check_near(leaf, 0, ~std::uint64_t{0}, base, radius);
        if (leaf.size() > 0) check_near(leaf, leaf.get(0).key, ~std::uint64_t{0} >> 1, base, radius);
    }
    return 0;
}
