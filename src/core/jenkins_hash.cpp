// lookup3's byte-at-a-time path (the one whose result does not depend on the
// machine's endianness or on the key's alignment), written from the published
// algorithm: 12-byte blocks mixed into (a, b, c), the last 0..12 bytes added
// little-endian, then the final avalanche.
#include "jenkins_hash.hpp"

namespace simhash {
namespace {

constexpr std::uint32_t rotl32(std::uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

struct State {
    std::uint32_t a, b, c;

    void mix() {
        a -= c; a ^= rotl32(c, 4);  c += b;
        b -= a; b ^= rotl32(a, 6);  a += c;
        c -= b; c ^= rotl32(b, 8);  b += a;
        a -= c; a ^= rotl32(c, 16); c += b;
        b -= a; b ^= rotl32(a, 19); a += c;
        c -= b; c ^= rotl32(b, 4);  b += a;
    }

    void finish() {
        c ^= b; c -= rotl32(b, 14);
        a ^= c; a -= rotl32(c, 11);
        b ^= a; b -= rotl32(a, 25);
        c ^= b; c -= rotl32(b, 16);
        a ^= c; a -= rotl32(c, 4);
        b ^= a; b -= rotl32(a, 14);
        c ^= b; c -= rotl32(b, 24);
    }
};

// Bytes [0, n) of p (n <= 4) as a little-endian word.
std::uint32_t little_endian_word(const unsigned char *p, std::size_t n) {
    std::uint32_t w = 0;
    for (std::size_t i = 0; i < n; ++i)
        w |= static_cast<std::uint32_t>(p[i]) << (8 * i);
    return w;
}

}  // namespace

std::uint64_t jenkins_hash(std::string_view bytes) noexcept {
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
    std::size_t length = bytes.size();
    // Both seeds (pc, pb) are 0; only the length perturbs the initial state.
    const std::uint32_t init = 0xdeadbeefu + static_cast<std::uint32_t>(length);
    State s{init, init, init};

    while (length > 12) {
        s.a += little_endian_word(p, 4);
        s.b += little_endian_word(p + 4, 4);
        s.c += little_endian_word(p + 8, 4);
        s.mix();
        p += 12;
        length -= 12;
    }
    // An empty key skips the final mix: lookup3 returns the initial state.
    if (length > 0) {
        s.a += little_endian_word(p, length < 4 ? length : 4);
        if (length > 4)
            s.b += little_endian_word(p + 4, length < 8 ? length - 4 : 4);
        if (length > 8)
            s.c += little_endian_word(p + 8, length - 8);
        s.finish();
    }
    return (static_cast<std::uint64_t>(s.c) << 32) | s.b;
}

}  // namespace simhash
