#include <gtest/gtest.h>

#include "text_form.hpp"

using simhash::ParseError;

TEST(Hex, RoundTripAndCase) {
    std::uint64_t v = 0;
    ASSERT_EQ(simhash::parse_hex("0123456789ABCDEF", &v), ParseError::none);
    EXPECT_EQ(v, 0x0123456789abcdefULL);
    ASSERT_EQ(simhash::parse_hex("0xffffffffffffffff", &v), ParseError::none);
    EXPECT_EQ(v, ~0ULL);
    char out[17];
    simhash::format_hex(0x00000000000000a0ULL, out);
    EXPECT_STREQ(out, "00000000000000a0");
}

TEST(Hex, Rejects) {
    std::uint64_t v = 0;
    EXPECT_EQ(simhash::parse_hex("", &v), ParseError::empty);
    EXPECT_EQ(simhash::parse_hex("0x", &v), ParseError::bad_length);
    EXPECT_EQ(simhash::parse_hex("abc", &v), ParseError::bad_length);
    EXPECT_EQ(simhash::parse_hex("0123456789abcdef0", &v), ParseError::bad_length);
    EXPECT_EQ(simhash::parse_hex("0123456789abcdeg", &v), ParseError::bad_character);
    EXPECT_EQ(simhash::parse_hex(" 0123456789abcdef", &v), ParseError::bad_character);
    EXPECT_EQ(simhash::parse_hex("0123456789abcdef ", &v), ParseError::bad_character);
}

TEST(Base32, KnownValuesAndRoundTrip) {
    char out[14];
    simhash::format_base32(0, out);
    EXPECT_STREQ(out, "aaaaaaaaaaaaa");
    // RFC 4648 test vector: base32("foobar") = MZXW6YTBOI======; 8 bytes "foobarAB"
    // big-endian 0x666f6f6261724142 -> "mzxw6ytbojaue" (Python base64.b32encode, lower-cased).
    simhash::format_base32(0x666f6f6261724142ULL, out);
    EXPECT_STREQ(out, "mzxw6ytbojaue");
    std::uint64_t v = 0;
    ASSERT_EQ(simhash::parse_base32("MZXW6YTBOJAUE", &v), ParseError::none);
    EXPECT_EQ(v, 0x666f6f6261724142ULL);
    for (std::uint64_t x : {0ULL, 1ULL, ~0ULL, 0x8000000000000000ULL, 0x0123456789abcdefULL}) {
        simhash::format_base32(x, out);
        ASSERT_EQ(simhash::parse_base32(out, &v), ParseError::none);
        EXPECT_EQ(v, x);
    }
}

TEST(Base32, Rejects) {
    std::uint64_t v = 0;
    EXPECT_EQ(simhash::parse_base32("", &v), ParseError::empty);
    EXPECT_EQ(simhash::parse_base32("aaaa", &v), ParseError::bad_length);
    EXPECT_EQ(simhash::parse_base32("aaaaaaaaaaaa1", &v), ParseError::bad_character);
    EXPECT_EQ(simhash::parse_base32("aaaaaaaaaaaaa===", &v), ParseError::bad_character);
    EXPECT_EQ(simhash::parse_base32("aaaaaaaaaaaab", &v), ParseError::noncanonical);
}
