// The vote over features that arrive already hashed: the array, tsvector and
// aggregate forms of simhash() in SQL, where the caller chose the features.
#pragma once
#include <cstddef>
#include <cstdint>

#include "error.hpp"
#include "vote.hpp"

namespace simhash {

// weights == nullptr gives every feature weight 1, which is seomoz/simhash-cpp's
// compute(). No features give 0. `interrupted` is polled every few thousand
// features; when it returns true, Error(cancelled) is thrown.
std::uint64_t fingerprint_hashes(const std::uint64_t *hashes, const FixedWeight *weights, std::size_t count,
                                 InterruptCheck interrupted);

}  // namespace simhash
