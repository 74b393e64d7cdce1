// The feature hash: XXH3-64 over a feature's UTF-8 bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace simhash {

inline std::uint64_t feature_hash(std::string_view bytes, std::uint64_t seed) noexcept {
    return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
}

}  // namespace simhash
