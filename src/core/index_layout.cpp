#include "index_layout.hpp"

#include <cmath>

namespace simhash::index {

Layout make_layout(int max_distance) noexcept {
    Layout l{};
    l.max_distance = max_distance;
    l.tables = max_distance + 1;
    int base = 64 / l.tables;
    int longer = 64 % l.tables;
    int at = 0;
    for (int t = 0; t < l.tables; ++t) {
        l.start[t] = static_cast<std::uint8_t>(at);
        l.width[t] = static_cast<std::uint8_t>(base + (t < longer ? 1 : 0));
        at += l.width[t];
    }
    return l;
}

int guaranteed_blocks(const Layout &l, int k) noexcept {
    if (k < 0 || k > l.max_distance) return 0;
    if (k == 0) return l.tables;
    return (l.tables - k + k - 1) / k;
}

int prefix_bits(const Layout &l, int t, int k) noexcept {
    int m = guaranteed_blocks(l, k);
    int bits = 0;
    for (int i = 0; i < m; ++i) bits += l.width[(t + i) % l.tables];
    return bits;
}

double probe_fraction(const Layout &l, int k) noexcept {
    if (guaranteed_blocks(l, k) == 0) return INFINITY;
    double sum = 0;
    for (int t = 0; t < l.tables; ++t) sum += std::ldexp(1.0, -prefix_bits(l, t, k));
    return sum;
}

}  // namespace simhash::index
