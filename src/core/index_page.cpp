#include "index_page.hpp"

#include <algorithm>

namespace simhash::index {

EntryKey leaf_split(std::uint8_t *left, std::size_t n, std::uint8_t *right, EntryKey *scratch,
                    std::size_t *n_left, std::size_t *n_right) noexcept {
    for (std::size_t i = 0; i < n; ++i) scratch[i] = leaf_get(left, i);
    std::sort(scratch, scratch + n, key_less);
    std::size_t mid = n / 2;
    for (std::size_t i = 0; i < mid; ++i) leaf_put(left, i, scratch[i]);
    for (std::size_t i = mid; i < n; ++i) leaf_put(right, i - mid, scratch[i]);
    *n_left = mid;
    *n_right = n - mid;
    return scratch[mid];
}

namespace {

inline std::size_t leaf_near_body(const std::uint8_t *area, std::size_t n, std::uint64_t qkey, int radius,
                                  std::uint16_t *out) noexcept {
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t key;
        std::memcpy(&key, area + i * kLeafEntrySize, 8);
        out[m] = static_cast<std::uint16_t>(i);
        m += __builtin_popcountll(key ^ qkey) <= radius;  // branch-free: few entries pass
    }
    return m;
}

// PostgreSQL's build flags target baseline x86-64, where __builtin_popcountll
// is a libgcc call; a copy compiled for POPCNT runs when the CPU has it.
#if defined(__x86_64__)
__attribute__((target("popcnt"))) std::size_t leaf_near_popcnt(const std::uint8_t *area, std::size_t n,
                                                                std::uint64_t qkey, int radius,
                                                                std::uint16_t *out) noexcept {
    return leaf_near_body(area, n, qkey, radius, out);
}
#endif

}  // namespace

std::size_t leaf_near(const std::uint8_t *area, std::size_t n, std::uint64_t qkey, int radius,
                      std::uint16_t *out) noexcept {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("popcnt")) return leaf_near_popcnt(area, n, qkey, radius, out);
#endif
    return leaf_near_body(area, n, qkey, radius, out);
}

std::size_t internal_find(const std::uint8_t *area, std::size_t n, const EntryKey &key) noexcept {
    std::size_t lo = 0, hi = n;  // answer in [lo, hi): first entry with low > key, minus one
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (compare_keys(internal_get(area, mid).low, key) <= 0)
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
    return internal_get(right, 0).low;
}

bool leaf_keys_within(const std::uint8_t *area, std::size_t n, const EntryKey &low, bool has_high,
                      const EntryKey &high, std::size_t *bad) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        EntryKey e = leaf_get(area, i);
        if (key_less(e, low) || (has_high && !key_less(e, high))) {
            *bad = i;
            return false;
        }
    }
    return true;
}

bool internal_sorted_within(const std::uint8_t *area, std::size_t n, const EntryKey &low, bool has_high,
                            const EntryKey &high, std::size_t *bad) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        EntryKey e = internal_get(area, i).low;
        bool ordered = i == 0 ? compare_keys(e, low) == 0 : key_less(internal_get(area, i - 1).low, e);
        if (!ordered || (has_high && !key_less(e, high))) {
            *bad = i;
            return false;
        }
    }
    return true;
}

}  // namespace simhash::index
