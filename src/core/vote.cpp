#include "vote.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bit_lanes.hpp"

namespace simhash {

namespace {

// A byte counter overflows after 255 additions.
constexpr unsigned kLaneCapacity = 255;

// ln(2) as a 0.64 fixed-point fraction.
constexpr std::uint64_t kLn2Q64 = 0xB17217F7D1CF79ABULL;
constexpr int kLog2FractionBits = 40;

}  // namespace

bool to_fixed_weight(double weight, FixedWeight *out) {
    if (!(weight >= 0.0) || !(weight < kMaxWeight)) return false;  // also rejects NaN
    *out = static_cast<FixedWeight>(std::llround(std::ldexp(weight, kWeightFractionBits)));
    return true;
}

double from_fixed_weight(FixedWeight weight) {
    return std::ldexp(static_cast<double>(weight), -kWeightFractionBits);
}

FixedWeight log1p_weight(std::uint64_t count) {
    const std::uint64_t x = count + 1;  // count < 2^64 - 1 in any real document
    const int e = 63 - __builtin_clzll(x);
    // Mantissa in [1, 2) with 62 fraction bits; log2 of it bit by bit by squaring.
    std::uint64_t m = e <= 62 ? x << (62 - e) : x >> (e - 62);
    std::uint64_t frac = 0;
    for (int i = 0; i < kLog2FractionBits; ++i) {
        m = static_cast<std::uint64_t>((static_cast<unsigned __int128>(m) * m) >> 62);
        frac <<= 1;
        if (m >= (std::uint64_t{2} << 62)) {
            m >>= 1;
            frac |= 1;
        }
    }
    const unsigned __int128 log2_q40 = (static_cast<unsigned __int128>(e) << kLog2FractionBits) | frac;
    const unsigned __int128 ln_q104 = log2_q40 * kLn2Q64;
    const int shift = kLog2FractionBits + 64 - kWeightFractionBits;
    return static_cast<FixedWeight>((ln_q104 + (static_cast<unsigned __int128>(1) << (shift - 1))) >> shift);
}

Vote::Vote() : totals_{}, lanes_{}, pending_units_(0), features_(0) {}

void Vote::add_unit(std::uint64_t hash) { add_units(&hash, 1); }

void Vote::add_units(const std::uint64_t *hashes, std::size_t count) {
    while (count != 0) {
        const std::size_t n = std::min<std::size_t>(count, kLaneCapacity - pending_units_);
        count_bits(lanes_.data(), hashes, n);
        hashes += n;
        count -= n;
        features_ += n;
        pending_units_ += static_cast<unsigned>(n);
        if (pending_units_ == kLaneCapacity) flush_lanes();
    }
}

void Vote::flush_lanes() {
    if (pending_units_ == 0) return;
    const __int128 unit = kUnitWeight;
    for (int i = 0; i < 64; ++i)
        totals_[i] += unit * (2 * static_cast<std::int64_t>(lanes_[i]) - static_cast<std::int64_t>(pending_units_));
    lanes_.fill(0);
    pending_units_ = 0;
}

void Vote::add(std::uint64_t hash, FixedWeight weight) {
    for (int i = 0; i < 64; ++i) {
        if ((hash >> i) & 1)
            totals_[i] += weight;
        else
            totals_[i] -= weight;
    }
    ++features_;
}

void Vote::merge(const Vote &other) {
    Vote copy = other;
    copy.flush_lanes();
    flush_lanes();
    for (int i = 0; i < 64; ++i) totals_[i] += copy.totals_[i];
    features_ += copy.features_;
}

std::uint64_t Vote::fingerprint() const {
    Vote settled = *this;
    settled.flush_lanes();
    std::uint64_t result = 0;
    for (int i = 0; i < 64; ++i)
        if (settled.totals_[i] > 0) result |= std::uint64_t{1} << i;
    return result;
}

bool Vote::empty() const { return features_ == 0; }

void Vote::serialize(unsigned char out[kSerializedSize]) const {
    Vote settled = *this;
    settled.flush_lanes();
    unsigned char *p = out;
    for (int i = 0; i < 64; ++i) {
        unsigned __int128 v = static_cast<unsigned __int128>(settled.totals_[i]);
        for (int b = 0; b < 16; ++b) *p++ = static_cast<unsigned char>(v >> (8 * b));
    }
    for (int b = 0; b < 8; ++b) *p++ = static_cast<unsigned char>(features_ >> (8 * b));
}

Vote Vote::deserialize(const unsigned char in[kSerializedSize]) {
    Vote v;
    const unsigned char *p = in;
    for (int i = 0; i < 64; ++i) {
        unsigned __int128 t = 0;
        for (int b = 0; b < 16; ++b) t |= static_cast<unsigned __int128>(*p++) << (8 * b);
        v.totals_[i] = static_cast<__int128>(t);
    }
    for (int b = 0; b < 8; ++b) v.features_ |= static_cast<std::uint64_t>(*p++) << (8 * b);
    return v;
}

}  // namespace simhash
