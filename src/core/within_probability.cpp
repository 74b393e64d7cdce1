#include "within_probability.hpp"

#include <cmath>

#include "hamming.hpp"

namespace simhash {

double random_within_probability(int k) noexcept {
    if (k < 0) return 0.0;
    if (k >= kBits) return 1.0;
    // C(64, i) grows to 1.8e18: long double keeps every term exact on x86-64
    // and the sum well within a double's precision elsewhere.
    long double term = 1.0L, sum = 1.0L;
    for (int i = 1; i <= k; ++i) {
        term = term * (kBits - i + 1) / i;
        sum += term;
    }
    return static_cast<double>(std::ldexp(sum, -kBits));
}

}  // namespace simhash
