// Fuzzes the text input of simhash64 (hex) and base32: never crash; anything
// accepted must print back to the canonical form and parse to the same value.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "text_form.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char *>(data), size);
    std::uint64_t v = 0, again = 0;
    if (simhash::parse_hex(text, &v) == simhash::ParseError::none) {
        char out[17];
        simhash::format_hex(v, out);
        if (simhash::parse_hex(out, &again) != simhash::ParseError::none || again != v) __builtin_trap();
    }
    if (simhash::parse_base32(text, &v) == simhash::ParseError::none) {
        char out[14];
        simhash::format_base32(v, out);
        if (simhash::parse_base32(out, &again) != simhash::ParseError::none || again != v) __builtin_trap();
        for (std::size_t i = 0; i < 13; ++i)  // canonical: equal to the input but for case
            if ((out[i] | 0x20) != (text[i] | 0x20)) __builtin_trap();
    }
    return 0;
}
