// Hamming distance between fingerprints: the one measure every part of simhash uses.
#pragma once
#include <cstdint>

namespace simhash {

constexpr int kBits = 64;

inline int hamming_distance(std::uint64_t a, std::uint64_t b) noexcept {
    return __builtin_popcountll(a ^ b);
}

}  // namespace simhash
