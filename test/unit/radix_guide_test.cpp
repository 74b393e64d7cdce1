#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "radix_guide.hpp"

namespace {

using simhash::build_radix_guide;
using simhash::GuideSpan;
using simhash::radix_guide_bits;
using simhash::radix_guide_span;

// For every probe, the span must hold upper_bound's answer between its ends,
// and every key before it must be smaller and every key from its end larger.
void expect_spans_bound_the_search(const std::vector<std::uint64_t> &keys, int bits,
                                   const std::vector<std::uint64_t> &probes) {
    std::vector<std::uint32_t> guide((std::size_t{1} << bits) + 1);
    build_radix_guide(keys.size(), bits, [&](std::size_t i) { return keys[i]; }, guide.data());
    for (std::uint64_t q : probes) {
        const GuideSpan s = radix_guide_span(guide.data(), bits, q);
        ASSERT_LE(s.first, s.last);
        ASSERT_LE(s.last, keys.size());
        const std::size_t lower = std::lower_bound(keys.begin(), keys.end(), q) - keys.begin();
        const std::size_t upper = std::upper_bound(keys.begin(), keys.end(), q) - keys.begin();
        ASSERT_LE(s.first, lower) << "probe " << q << " bits " << bits;
        ASSERT_GE(s.last, upper) << "probe " << q << " bits " << bits;
        if (s.first > 0) {
            ASSERT_LT(keys[s.first - 1], q);
        }
        if (s.last < keys.size()) {
            ASSERT_GT(keys[s.last], q);
        }
    }
}

std::vector<std::uint64_t> probes_around(const std::vector<std::uint64_t> &keys, std::mt19937_64 &rng) {
    std::vector<std::uint64_t> probes{0, 1, ~std::uint64_t{0}, std::uint64_t{1} << 63};
    for (std::uint64_t k : keys) {
        probes.push_back(k);
        probes.push_back(k - 1);
        probes.push_back(k + 1);
    }
    for (int i = 0; i < 1000; ++i) probes.push_back(rng());
    return probes;
}

TEST(RadixGuide, BitsReachTheCountWithinTheLimit) {
    EXPECT_EQ(radix_guide_bits(0, 24), 0);
    EXPECT_EQ(radix_guide_bits(1, 24), 0);
    EXPECT_EQ(radix_guide_bits(2, 24), 1);
    EXPECT_EQ(radix_guide_bits(1000, 24), 10);
    EXPECT_EQ(radix_guide_bits(1024, 24), 10);
    EXPECT_EQ(radix_guide_bits(1025, 24), 11);
    EXPECT_EQ(radix_guide_bits(std::size_t{1} << 30, 24), 24);
    EXPECT_EQ(radix_guide_bits(5000, 8), 8);
}

TEST(RadixGuide, SpansBoundTheSearchOfSpreadKeys) {
    std::mt19937_64 rng(11);
    std::vector<std::uint64_t> keys(3000);
    for (auto &k : keys) k = rng();
    keys.push_back(0);
    keys.push_back(~std::uint64_t{0});
    std::sort(keys.begin(), keys.end());
    const std::vector<std::uint64_t> probes = probes_around(keys, rng);
    for (int bits : {0, 1, 5, radix_guide_bits(keys.size(), 24), 16}) expect_spans_bound_the_search(keys, bits, probes);
}

TEST(RadixGuide, SpansBoundTheSearchOfCrowdedAndRepeatedKeys) {
    // Keys sharing their top 40 bits fall in one slot, which must then span
    // them all; repeated keys must stay inside one span.
    std::mt19937_64 rng(12);
    std::vector<std::uint64_t> keys;
    for (int i = 0; i < 2000; ++i) keys.push_back(0xABCDEF0123000000u | (rng() & 0xFFFFFF));
    for (int i = 0; i < 500; ++i) keys.push_back(0x4000000000000000u);
    for (int i = 0; i < 300; ++i) keys.push_back(rng());
    std::sort(keys.begin(), keys.end());
    const std::vector<std::uint64_t> probes = probes_around(keys, rng);
    for (int bits : {0, 3, radix_guide_bits(keys.size(), 24)}) expect_spans_bound_the_search(keys, bits, probes);

    std::vector<std::uint32_t> guide((std::size_t{1} << 12) + 1);
    build_radix_guide(keys.size(), 12, [&](std::size_t i) { return keys[i]; }, guide.data());
    const GuideSpan crowd = radix_guide_span(guide.data(), 12, 0xABCDEF0123456789u);
    EXPECT_GE(crowd.last - crowd.first, 2000u);
}

TEST(RadixGuide, EmptyKeysGiveEmptySpans) {
    for (int bits : {0, 4}) {
        std::vector<std::uint32_t> guide((std::size_t{1} << bits) + 1, 7);
        build_radix_guide(0, bits, [](std::size_t) { return std::uint64_t{0}; }, guide.data());
        for (std::uint64_t q : {std::uint64_t{0}, ~std::uint64_t{0}}) {
            const GuideSpan s = radix_guide_span(guide.data(), bits, q);
            EXPECT_EQ(s.first, 0u);
            EXPECT_EQ(s.last, 0u);
        }
    }
}

}  // namespace
