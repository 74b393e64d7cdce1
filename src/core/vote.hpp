// Charikar's vote: each feature adds its weight to the bit positions where its
// hash has a 1 and subtracts it where the hash has a 0; a fingerprint bit is 1
// where the total is strictly positive (a tie gives 0, as seomoz/simhash-cpp).
//
// Every weight is a fixed-point integer, so the fingerprint is the same on every
// machine, compiler and instruction set: no floating-point sum can round a bit over.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace simhash {

// Weights are multiples of 2^-32; 1.0 is kUnitWeight.
using FixedWeight = std::int64_t;
constexpr int kWeightFractionBits = 32;
constexpr FixedWeight kUnitWeight = FixedWeight{1} << kWeightFractionBits;
// Largest accepted weight (exclusive): 2^31, so that sums of 2^32 weights cannot overflow.
constexpr double kMaxWeight = 2147483648.0;

// Rounds a weight to the fixed-point grid. False for NaN, infinities, negatives
// and weights of kMaxWeight or more.
bool to_fixed_weight(double weight, FixedWeight *out);
double from_fixed_weight(FixedWeight weight);

// round(ln(1 + count) * 2^32), computed with integers only.
FixedWeight log1p_weight(std::uint64_t count);

class Vote {
public:
    Vote();

    // A feature of weight 1: the common case (term frequency), kept in byte lanes.
    void add_unit(std::uint64_t hash);
    // The same for many: faster, the counters staying in registers.
    void add_units(const std::uint64_t *hashes, std::size_t count);
    void add(std::uint64_t hash, FixedWeight weight);
    // Adds another vote's totals (parallel aggregation).
    void merge(const Vote &other);

    std::uint64_t fingerprint() const;
    bool empty() const;

    // Fixed-size portable image for parallel aggregate state (little-endian).
    static constexpr std::size_t kSerializedSize = 64 * 16 + 8;
    void serialize(unsigned char out[kSerializedSize]) const;
    static Vote deserialize(const unsigned char in[kSerializedSize]);

private:
    void flush_lanes();

    // Weighted totals per bit, in units of 2^-32.
    std::array<__int128, 64> totals_;
    // Unit votes not yet folded into totals_: lanes_[i] counts the pending unit
    // hashes with bit i set (see count_bits).
    std::array<std::uint8_t, 64> lanes_;
    unsigned pending_units_;
    std::uint64_t features_;
};

}  // namespace simhash
