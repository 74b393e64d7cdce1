#include "index_page.hpp"

#include <algorithm>

namespace simhash::index {

std::size_t internal_find(const std::uint8_t *area, std::size_t n, const EntryKey &key) noexcept {
    std::size_t lo = 0, hi = n;  // answer in [lo, hi): first entry with low > key, minus one
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (compare_keys(internal_low(area, mid), key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? 0 : lo - 1;
}

void internal_insert(std::uint8_t *area, std::size_t n, std::size_t pos, const InternalEntry &e) noexcept {
    std::memmove(area + (pos + 1) * kInternalEntrySize, area + pos * kInternalEntrySize,
                 (n - pos) * kInternalEntrySize);
    internal_put(area, pos, e);
}

EntryKey internal_split(std::uint8_t *left, std::size_t n, std::uint8_t *right, std::size_t *n_left,
                        std::size_t *n_right) noexcept {
    std::size_t mid = n / 2;
    std::memcpy(right, left + mid * kInternalEntrySize, (n - mid) * kInternalEntrySize);
    *n_left = mid;
    *n_right = n - mid;
    return internal_low(right, 0);
}

bool internal_sorted_within(const std::uint8_t *area, std::size_t n, const EntryKey &low, bool has_high,
                            const EntryKey &high, std::size_t *bad) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        EntryKey e = internal_low(area, i);
        bool ordered = i == 0 ? compare_keys(e, low) == 0 : key_less(internal_low(area, i - 1), e);
        if (!ordered || (has_high && !key_less(e, high))) {
            *bad = i;
            return false;
        }
    }
    return true;
}

}  // namespace simhash::index
