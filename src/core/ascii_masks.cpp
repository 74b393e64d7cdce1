#include "ascii_masks.hpp"

#ifdef SIMHASH_X86_DISPATCH
#include <immintrin.h>

namespace simhash {

namespace {

// x in [low, low + span] as unsigned bytes: min(x - low, span) == x - low.
__attribute__((target("avx2"))) __m256i in_range(__m256i x, char low, char span) {
    const __m256i d = _mm256_sub_epi8(x, _mm256_set1_epi8(low));
    return _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(span)), d);
}

}  // namespace

__attribute__((target("avx2"))) AsciiMasks ascii_masks_avx2(const unsigned char *p, char *lower) {
    AsciiMasks m{0, 0, 0};
    for (int k = 0; k < 2; ++k) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 32 * k));
        const __m256i letter = in_range(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), 'a', 25);
        const __m256i upper = in_range(v, 'A', 25);
        const __m256i word = _mm256_or_si256(
            letter, _mm256_or_si256(in_range(v, '0', 9), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('_'))));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(lower + 32 * k),
                            _mm256_or_si256(v, _mm256_and_si256(upper, _mm256_set1_epi8(0x20))));
        const int shift = 32 * k;
        m.non_ascii |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm256_movemask_epi8(v))) << shift;
        m.word |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm256_movemask_epi8(word))) << shift;
        m.letter |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm256_movemask_epi8(letter))) << shift;
    }
    return m;
}

}  // namespace simhash
#endif
