// The chance that two independent uniformly random 64-bit values are within
// Hamming distance k: sum_{i<=k} C(64, i) / 2^64. The planner uses it as the
// selectivity of "within k" where it has nothing better; real fingerprints
// cluster (near-duplicates are why anyone builds them), so it is a floor.
#pragma once

namespace simhash {

// k < 0 gives 0, k >= 64 gives 1.
double random_within_probability(int k) noexcept;

}  // namespace simhash
