#include "block_layout.hpp"

#include <limits>
#include <string>

#include "error.hpp"

namespace simhash {

BlockSplit split_blocks(int blocks) noexcept {
    BlockSplit s{};
    s.blocks = blocks;
    const int base = 64 / blocks;
    const int wide_from = blocks - 64 % blocks;
    int shift = 64;
    for (int b = 0; b < blocks; ++b) {
        s.width[b] = static_cast<std::uint8_t>(base + (b >= wide_from ? 1 : 0));
        shift -= s.width[b];
        s.shift[b] = static_cast<std::uint8_t>(shift);
    }
    return s;
}

std::uint64_t permute_blocks(const BlockSplit &s, const std::uint8_t *order, std::uint64_t fp) noexcept {
    std::uint64_t out = 0;
    int top = 64;
    for (int i = 0; i < s.blocks; ++i) {
        const int b = order[i];
        top -= s.width[b];
        out |= block_value(s, b, fp) << top;
    }
    return out;
}

std::uint64_t unpermute_blocks(const BlockSplit &s, const std::uint8_t *order, std::uint64_t key) noexcept {
    std::uint64_t out = 0;
    int top = 64;
    for (int i = 0; i < s.blocks; ++i) {
        const int b = order[i];
        top -= s.width[b];
        out |= ((key >> top) & low_bits(s.width[b])) << s.shift[b];
    }
    return out;
}

int order_prefix_bits(const BlockSplit &s, const std::uint8_t *order, int m) noexcept {
    int bits = 0;
    for (int i = 0; i < m; ++i) bits += s.width[order[i]];
    return bits;
}

std::size_t binomial(int n, int r) noexcept {
    if (r < 0 || r > n) return 0;
    if (r > n - r) r = n - r;
    unsigned __int128 c = 1;
    for (int i = 1; i <= r; ++i) {
        c = c * static_cast<unsigned>(n - r + i) / static_cast<unsigned>(i);
        if (c > std::numeric_limits<std::size_t>::max()) return std::numeric_limits<std::size_t>::max();
    }
    return static_cast<std::size_t>(c);
}

std::size_t layout_tables(int k, int blocks) noexcept {
    if (k < 0 || blocks < 1 || k > blocks || blocks > kMaxBlocks) return 0;
    return binomial(blocks, k);
}

void layout_orders(int k, int blocks, std::uint8_t *orders) noexcept {
    if (blocks == k + 1) {
        for (int t = 0; t < blocks; ++t)
            for (int i = 0; i < blocks; ++i) *orders++ = static_cast<std::uint8_t>((t + i) % blocks);
        return;
    }
    // Every set of blocks - k blocks, in lexicographic order.
    const int chosen = blocks - k;
    int pick[kMaxBlocks];
    for (int i = 0; i < chosen; ++i) pick[i] = i;
    for (;;) {
        std::uint64_t set = 0;
        for (int i = 0; i < chosen; ++i) set |= std::uint64_t{1} << pick[i];
        for (int i = 0; i < chosen; ++i) *orders++ = static_cast<std::uint8_t>(pick[i]);
        for (int b = 0; b < blocks; ++b)
            if (!((set >> b) & 1)) *orders++ = static_cast<std::uint8_t>(b);
        int i = chosen - 1;
        while (i >= 0 && pick[i] == blocks - chosen + i) --i;
        if (i < 0) return;
        ++pick[i];
        for (int j = i + 1; j < chosen; ++j) pick[j] = pick[j - 1] + 1;
    }
}

int guaranteed_blocks(int k_layout, int blocks, int k) noexcept {
    if (k < 0 || k > k_layout) return 0;
    if (k == 0) return blocks;
    if (blocks == k_layout + 1) return (blocks - k + k - 1) / k;
    return blocks - k_layout;
}

BlockLayout::BlockLayout(int k, int blocks) : k_(k) {
    if (k < 1 || k > 64 || blocks < k || blocks > kMaxBlocks)
        throw Error(Error::Kind::invalid_argument,
                    "invalid block layout: k = " + std::to_string(k) + ", blocks = " + std::to_string(blocks));
    const std::size_t tables = layout_tables(k, blocks);
    if (tables > kMaxTables)
        throw Error(Error::Kind::invalid_argument,
                    "block layout with " + std::to_string(blocks) + " blocks for k = " + std::to_string(k) +
                        " has too many tables");
    split_ = split_blocks(blocks);
    orders_.resize(tables * static_cast<std::size_t>(blocks));
    layout_orders(k, blocks, orders_.data());
    const int m = guaranteed_blocks(k, blocks, k);
    for (std::size_t t = 0; t < tables; ++t) {
        const std::uint8_t *order = &orders_[t * static_cast<std::size_t>(blocks)];
        std::uint64_t set = 0;
        for (int i = 0; i < m; ++i) set |= std::uint64_t{1} << order[i];
        prefix_set_.push_back(set);
        prefix_bits_.push_back(order_prefix_bits(split_, order, m));
    }
}

bool BlockLayout::reports_pair(std::size_t t, std::uint64_t x) const noexcept {
    std::uint64_t lowest_zero_blocks = 0;
    int need = split_.blocks - k_;
    for (int b = 0; b < split_.blocks && need > 0; ++b) {
        if (block_value(split_, b, x) == 0) {
            lowest_zero_blocks |= std::uint64_t{1} << b;
            --need;
        }
    }
    return lowest_zero_blocks == prefix_set_[t];
}

}  // namespace simhash
