#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "ascii_masks.hpp"

#ifdef __SSE2__

using simhash::AsciiMasks;

namespace {

// What the masks mean, a byte at a time.
AsciiMasks reference(const unsigned char *p, char *lower) {
    AsciiMasks m{0, 0, 0};
    for (int i = 0; i < 64; ++i) {
        const unsigned char b = p[i];
        const bool letter = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
        const bool word = letter || (b >= '0' && b <= '9') || b == '_';
        m.non_ascii |= std::uint64_t{b >= 0x80} << i;
        m.word |= std::uint64_t{word} << i;
        m.letter |= std::uint64_t{letter} << i;
        lower[i] = static_cast<char>(b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b);
    }
    return m;
}

using MasksFn = AsciiMasks (*)(const unsigned char *, char *);

void expect_same(MasksFn form, const char *name, const unsigned char *block) {
    char want_lower[64], got_lower[64];
    const AsciiMasks want = reference(block, want_lower);
    const AsciiMasks got = form(block, got_lower);
    EXPECT_EQ(got.non_ascii, want.non_ascii) << name;
    EXPECT_EQ(got.word, want.word) << name;
    EXPECT_EQ(got.letter, want.letter) << name;
    EXPECT_EQ(std::memcmp(got_lower, want_lower, 64), 0) << name;
}

void expect_all_forms(const unsigned char *block) {
    expect_same(simhash::ascii_masks_sse2, "sse2", block);
#ifdef SIMHASH_X86_DISPATCH
    if (simhash::cpu_has_avx2()) expect_same(simhash::ascii_masks_avx2, "avx2", block);
#endif
}

}  // namespace

TEST(AsciiMasks, RandomBlocks) {
    std::mt19937_64 rng(7);
    unsigned char block[64];
    for (int round = 0; round < 2000; ++round) {
        // Half the rounds ASCII only, where the word and letter masks matter.
        const unsigned limit = round % 2 ? 256 : 128;
        for (auto &b : block) b = static_cast<unsigned char>(rng() % limit);
        expect_all_forms(block);
    }
}

// The bytes on each side of every range edge, and their high-bit twins (a
// signed comparison would take 0xC1 for 'A'), in every position of the block.
TEST(AsciiMasks, RangeEdgesInEveryPosition) {
    const std::string edges = std::string("/09:@AZ[`az{_^\x7f ", 16) + "\x80\xff\xc1\xda\xe1\xfa\xdf\xb0\xb9";
    unsigned char block[64];
    for (std::size_t shift = 0; shift < edges.size(); ++shift) {
        for (int i = 0; i < 64; ++i) block[i] = static_cast<unsigned char>(edges[(i + shift) % edges.size()]);
        expect_all_forms(block);
    }
}

TEST(AsciiMasks, UniformBlocks) {
    unsigned char block[64];
    for (int b = 0; b < 256; ++b) {
        std::memset(block, b, 64);
        expect_all_forms(block);
    }
}

// The tests above compare the AVX2 form only on a CPU that has AVX2; on one
// without, this one says so in the test report instead of passing quietly.
TEST(AsciiMasks, Avx2FormIsChecked) {
#ifdef SIMHASH_X86_DISPATCH
    if (!simhash::cpu_has_avx2()) GTEST_SKIP() << "no AVX2 on this CPU: the AVX2 form went unchecked";
    unsigned char block[64];
    for (int i = 0; i < 64; ++i) block[i] = static_cast<unsigned char>("Ab_9 z\x80"[i % 7]);
    expect_same(simhash::ascii_masks_avx2, "avx2", block);
#else
    GTEST_SKIP() << "no AVX2 form in this build";
#endif
}

#endif
