// Classes of 64 bytes at once, for the tokenizer's ASCII block path.
#pragma once
#include <cstdint>

#include "cpu_features.hpp"

#ifdef __SSE2__
#include <emmintrin.h>

namespace simhash {

// Bit i of each mask describes byte i of a block of 64.
struct AsciiMasks {
    std::uint64_t non_ascii, word, letter;
};

// Masks of the 64 bytes at p (word: ASCII letters, digits and '_'; letter:
// ASCII letters); `lower` receives the 64 bytes with ASCII capitals lower-cased.
// Inline: the tokenizer's block loop wants it without a call.
inline AsciiMasks ascii_masks_sse2(const unsigned char *p, char *lower) {
    AsciiMasks m{0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * k));
        // x in [low, low + span] as unsigned bytes: min(x - low, span) == x - low.
        auto in_range = [](__m128i x, char low, char span) {
            const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8(low));
            return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(span)), d);
        };
        const __m128i letter = in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 25);
        const __m128i upper = in_range(v, 'A', 25);
        const __m128i word =
            _mm_or_si128(letter, _mm_or_si128(in_range(v, '0', 9), _mm_cmpeq_epi8(v, _mm_set1_epi8('_'))));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(lower + 16 * k),
                         _mm_or_si128(v, _mm_and_si128(upper, _mm_set1_epi8(0x20))));
        const int shift = 16 * k;
        m.non_ascii |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(v))) << shift;
        m.word |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(word))) << shift;
        m.letter |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(letter))) << shift;
    }
    return m;
}

#ifdef SIMHASH_X86_DISPATCH
// The same masks and copy, 32 bytes per instruction.
AsciiMasks ascii_masks_avx2(const unsigned char *p, char *lower);
#endif

}  // namespace simhash
#endif
