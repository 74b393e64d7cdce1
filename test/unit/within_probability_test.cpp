#include <gtest/gtest.h>

#include <cmath>

#include "within_probability.hpp"

using simhash::random_within_probability;

TEST(WithinProbability, Endpoints) {
    EXPECT_EQ(random_within_probability(-1), 0.0);
    EXPECT_EQ(random_within_probability(0), std::ldexp(1.0, -64));
    EXPECT_EQ(random_within_probability(64), 1.0);
    EXPECT_EQ(random_within_probability(100), 1.0);
}

TEST(WithinProbability, KnownSums) {
    // 1 + 64 + 2016 + 41664 = 43745 points within distance 3.
    EXPECT_DOUBLE_EQ(random_within_probability(3), 43745.0 / std::ldexp(1.0, 64));
    // Symmetry: P(d <= 31) + P(d >= 32) = 1 and P(d >= 32) = P(d <= 32).
    EXPECT_NEAR(random_within_probability(31) + random_within_probability(32), 1.0, 1e-15);
    EXPECT_NEAR(random_within_probability(32), 0.5496733768739834, 1e-15);
}

TEST(WithinProbability, Monotone) {
    // Strictly increasing until the tail falls below a double's resolution near 1.
    for (int k = 0; k < 64; ++k) EXPECT_LE(random_within_probability(k), random_within_probability(k + 1));
    for (int k = 0; k < 48; ++k) EXPECT_LT(random_within_probability(k), random_within_probability(k + 1));
}
