// Text forms of a 64-bit fingerprint: 16 hex digits, and RFC 4648 base32.
#pragma once
#include <cstdint>
#include <string_view>

namespace simhash {

// Why a text form was rejected; the glue turns it into a message that quotes the input.
enum class ParseError {
    none,
    empty,
    bad_length,      // not 16 hex digits / not 13 base32 characters
    bad_character,   // a character outside the alphabet
    noncanonical,    // base32 whose unused last bit is set
};

const char *describe(ParseError e);

// Accepts 16 hex digits in either case, with an optional "0x"/"0X" prefix.
ParseError parse_hex(std::string_view text, std::uint64_t *out);
// Writes 16 lower-case hex digits and a terminating NUL (17 bytes).
void format_hex(std::uint64_t value, char out[17]);

// RFC 4648 base32 of the 8 big-endian bytes: 13 characters, no padding.
// Input accepts either case; output is lower case.
ParseError parse_base32(std::string_view text, std::uint64_t *out);
void format_base32(std::uint64_t value, char out[14]);

}  // namespace simhash
