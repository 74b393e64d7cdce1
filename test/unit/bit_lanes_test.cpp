#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "bit_lanes.hpp"

using simhash::count_bits_portable;

namespace {

using Lanes = std::array<std::uint8_t, 64>;
using CountBits = void (*)(std::uint8_t *, const std::uint64_t *, std::size_t);

// Counts with `form` from `start`, n hashes at a time, as Vote::add_units does.
Lanes counted(CountBits form, Lanes start, const std::vector<std::uint64_t> &hashes, std::size_t n) {
    for (std::size_t at = 0; at < hashes.size(); at += n)
        form(start.data(), hashes.data() + at, std::min(n, hashes.size() - at));
    return start;
}

// Lane by lane: how many hashes have the lane's bit, added modulo 256.
Lanes reference(Lanes start, const std::vector<std::uint64_t> &hashes) {
    for (int lane = 0; lane < 64; ++lane) {
        const auto set = std::count_if(hashes.begin(), hashes.end(),
                                       [lane](std::uint64_t h) { return (h & (std::uint64_t{1} << lane)) != 0; });
        start[lane] = static_cast<std::uint8_t>((start[lane] + set) % 256);
    }
    return start;
}

// Every form the build has, with its name.
std::vector<std::pair<const char *, CountBits>> forms() {
    std::vector<std::pair<const char *, CountBits>> out{{"portable", count_bits_portable},
                                                        {"dispatch", simhash::count_bits}};
#ifdef __SSE2__
    out.emplace_back("sse2", simhash::count_bits_sse2);
#endif
#ifdef SIMHASH_X86_DISPATCH
    if (simhash::cpu_has_avx2()) out.emplace_back("avx2", simhash::count_bits_avx2);
#endif
    return out;
}

void expect_all_forms_count(const Lanes &start, const std::vector<std::uint64_t> &hashes) {
    const Lanes want = reference(start, hashes);
    for (const auto &[name, form] : forms())
        for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{64}, hashes.size() + 1})
            EXPECT_EQ(counted(form, start, hashes, n), want) << name << ", batches of " << n;
}

}  // namespace

TEST(CountBits, RandomHashesFromZero) {
    std::mt19937_64 rng(42);
    std::vector<std::uint64_t> hashes(200);
    for (auto &h : hashes) h = rng();
    expect_all_forms_count(Lanes{}, hashes);
}

// Each bit position lands in its own counter: one bit set at a time, every byte
// and every bit of a byte (a swapped byte or bit in a shuffle would show here).
TEST(CountBits, EachBitCountsInItsOwnLane) {
    for (int bit = 0; bit < 64; ++bit) {
        const std::vector<std::uint64_t> one{std::uint64_t{1} << bit};
        Lanes want{};
        want[static_cast<std::size_t>(bit)] = 1;
        for (const auto &[name, form] : forms()) EXPECT_EQ(counted(form, Lanes{}, one, 1), want) << name << ", bit " << bit;
    }
}

// Counters up to their limit of 255, from counters already holding votes.
TEST(CountBits, FillsCountersToCapacity) {
    Lanes start{};
    for (std::size_t i = 0; i < 64; ++i) start[i] = static_cast<std::uint8_t>(i);
    std::vector<std::uint64_t> hashes(255 - 63, ~std::uint64_t{0});
    hashes.back() = 0;
    expect_all_forms_count(start, hashes);
    std::vector<std::uint64_t> ones(255, ~std::uint64_t{0});
    expect_all_forms_count(Lanes{}, ones);
}

TEST(CountBits, NoHashesChangeNothing) {
    Lanes start{};
    start[3] = 9;
    for (const auto &[name, form] : forms()) {
        Lanes lanes = start;
        form(lanes.data(), nullptr, 0);
        EXPECT_EQ(lanes, start) << name;
    }
}

// The tests above compare the AVX2 form only on a CPU that has AVX2; on one
// without, this one says so in the test report instead of passing quietly.
TEST(CountBits, Avx2FormIsChecked) {
#ifdef SIMHASH_X86_DISPATCH
    if (!simhash::cpu_has_avx2()) GTEST_SKIP() << "no AVX2 on this CPU: the AVX2 form went unchecked";
    const std::vector<std::uint64_t> hashes{0x0123456789abcdefu, ~std::uint64_t{0}, 1};
    EXPECT_EQ(counted(simhash::count_bits_avx2, Lanes{}, hashes, 3), reference(Lanes{}, hashes));
#else
    GTEST_SKIP() << "no AVX2 form in this build";
#endif
}
