#include "block_layout.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "error.hpp"

namespace simhash {

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

// Widths differ by at most one bit; block 0 holds the most significant bits.
BlockLayout::BlockLayout(int k, int blocks) : k_(k), blocks_(blocks) {
    if (k < 1 || k > 64 || blocks < k || blocks > 64)
        throw Error(Error::Kind::invalid_argument,
                    "invalid block layout: k = " + std::to_string(k) + ", blocks = " + std::to_string(blocks));
    if (binomial(blocks, k) > kMaxLayoutTables)
        throw Error(Error::Kind::invalid_argument,
                    "block layout with " + std::to_string(blocks) + " blocks for k = " + std::to_string(k) +
                        " has too many tables");
    int top = 64;
    for (int b = 0; b < blocks; ++b) {
        int width = 64 / blocks + (b < 64 % blocks ? 1 : 0);
        top -= width;
        block_shift_[b] = top;
        block_width_[b] = width;
        block_mask_[b] = (width == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1)) << top;
    }
    // Every set of blocks - k blocks, in lexicographic order.
    const int chosen = blocks - k;
    std::vector<int> pick(static_cast<std::size_t>(chosen));
    for (int i = 0; i < chosen; ++i) pick[static_cast<std::size_t>(i)] = i;
    for (;;) {
        std::uint64_t set = 0;
        int bits = 0;
        for (int b : pick) {
            set |= std::uint64_t{1} << b;
            bits += block_width_[b];
        }
        tables_.push_back(set);
        prefix_bits_.push_back(bits);
        int i = chosen - 1;
        while (i >= 0 && pick[static_cast<std::size_t>(i)] == blocks - chosen + i) --i;
        if (i < 0) break;
        ++pick[static_cast<std::size_t>(i)];
        for (int j = i + 1; j < chosen; ++j) pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
    }
}

std::uint64_t BlockLayout::permute(std::size_t t, std::uint64_t fp) const noexcept {
    const std::uint64_t set = tables_[t];
    if (set == 0) return fp;
    std::uint64_t out = 0;
    int filled = 0;
    // Two passes over the blocks: the prefix blocks, then the rest.
    for (int pass = 0; pass < 2; ++pass) {
        for (int b = 0; b < blocks_; ++b) {
            bool in_prefix = (set >> b) & 1;
            if (in_prefix != (pass == 0)) continue;
            int w = block_width_[b];
            std::uint64_t bits = (fp & block_mask_[b]) >> block_shift_[b];
            filled += w;
            out |= bits << (64 - filled);
        }
    }
    return out;
}

bool BlockLayout::reports_pair(std::size_t t, std::uint64_t x) const noexcept {
    std::uint64_t lowest_zero_blocks = 0;
    int need = blocks_ - k_;
    for (int b = 0; b < blocks_ && need > 0; ++b) {
        if ((x & block_mask_[b]) == 0) {
            lowest_zero_blocks |= std::uint64_t{1} << b;
            --need;
        }
    }
    return lowest_zero_blocks == tables_[t];
}

int BlockLayout::choose_blocks(int k, std::size_t distinct) {
    const double m = static_cast<double>(distinct);
    int best = k;
    double best_cost = std::numeric_limits<double>::infinity();
    for (int blocks = k; blocks <= 64; ++blocks) {
        std::size_t tables = binomial(blocks, k);
        if (tables > kMaxLayoutTables) break;
        // The shortest prefix: the blocks - k narrowest blocks.
        int narrow = 64 / blocks;
        int wide_blocks = 64 % blocks;
        int chosen = blocks - k;
        int narrow_blocks = blocks - wide_blocks;
        int bits = chosen <= narrow_blocks ? chosen * narrow : narrow_blocks * narrow + (chosen - narrow_blocks) * (narrow + 1);
        double passes = std::ceil(bits / 8.0);
        double candidates = m * m / std::ldexp(1.0, bits + 1);
        double cost = static_cast<double>(tables) * (m * (passes + 2.0) + candidates);
        if (cost < best_cost) {
            best_cost = cost;
            best = blocks;
        }
    }
    return best;
}

}  // namespace simhash
