// The unit votes' byte counters (Vote's pending lanes): lanes[i] counts the
// hashes with bit i set.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cpu_features.hpp"

namespace simhash {

// lanes[i] += how many of hashes[0 .. n) have bit i set. The caller keeps every
// counter below 256. Takes the AVX2 form when the CPU has it.
void count_bits(std::uint8_t lanes[64], const std::uint64_t *hashes, std::size_t n);

// The forms count_bits chooses from, the same counts each (tests compare them).
void count_bits_portable(std::uint8_t lanes[64], const std::uint64_t *hashes, std::size_t n);
#ifdef __SSE2__
void count_bits_sse2(std::uint8_t lanes[64], const std::uint64_t *hashes, std::size_t n);
#endif
#ifdef SIMHASH_X86_DISPATCH
void count_bits_avx2(std::uint8_t lanes[64], const std::uint64_t *hashes, std::size_t n);
#endif

}  // namespace simhash
