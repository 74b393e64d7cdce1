// The number of bits a value needs (C++20's std::bit_width, for C++17): the
// widths the leaf codec packs blocks and offsets into, and the scans' TID
// sort packs its keys into.
#pragma once
#include <cstdint>

namespace simhash {

inline int bit_width(std::uint64_t v) noexcept { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

}  // namespace simhash
