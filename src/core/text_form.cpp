#include "text_form.hpp"

namespace simhash {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int base32_digit(char c) {
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= '2' && c <= '7') return c - '2' + 26;
    return -1;
}

constexpr std::size_t kHexDigits = 16;
constexpr std::size_t kBase32Chars = 13;  // 65 bits: the last character carries 4 bits and a zero

}  // namespace

const char *describe(ParseError e) {
    switch (e) {
    case ParseError::none: return "Valid";
    case ParseError::empty: return "The input is empty";
    case ParseError::bad_length: return "Wrong number of digits";
    case ParseError::bad_character: return "Unexpected character";
    case ParseError::noncanonical: return "The unused low bit of the last character is set";
    }
    return "Invalid";
}

ParseError parse_hex(std::string_view text, std::uint64_t *out) {
    if (text.empty()) return ParseError::empty;
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        text.remove_prefix(2);
    for (char c : text)
        if (hex_digit(c) < 0) return ParseError::bad_character;
    if (text.size() != kHexDigits) return ParseError::bad_length;
    std::uint64_t v = 0;
    for (char c : text) v = (v << 4) | static_cast<std::uint64_t>(hex_digit(c));
    *out = v;
    return ParseError::none;
}

void format_hex(std::uint64_t value, char out[17]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
        out[i] = digits[value & 0xF];
        value >>= 4;
    }
    out[16] = '\0';
}

ParseError parse_base32(std::string_view text, std::uint64_t *out) {
    if (text.empty()) return ParseError::empty;
    for (char c : text)
        if (base32_digit(c) < 0) return ParseError::bad_character;
    if (text.size() != kBase32Chars) return ParseError::bad_length;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i + 1 < kBase32Chars; ++i)
        v = (v << 5) | static_cast<std::uint64_t>(base32_digit(text[i]));
    unsigned last = static_cast<unsigned>(base32_digit(text[kBase32Chars - 1]));
    if (last & 1) return ParseError::noncanonical;
    *out = (v << 4) | (last >> 1);
    return ParseError::none;
}

void format_base32(std::uint64_t value, char out[14]) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    out[kBase32Chars - 1] = alphabet[(value & 0xF) << 1];
    value >>= 4;
    for (int i = static_cast<int>(kBase32Chars) - 2; i >= 0; --i) {
        out[i] = alphabet[value & 0x1F];
        value >>= 5;
    }
    out[kBase32Chars] = '\0';
}

}  // namespace simhash
