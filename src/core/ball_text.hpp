// Text form of a Hamming ball: "<16 hex digits>/<radius>", e.g. "0123456789abcdef/3".
#pragma once
#include <cstdint>
#include <string_view>

#include "text_form.hpp"

namespace simhash {

constexpr int kMaxRadius = 64;

enum class BallParseError {
    none,
    no_separator,   // no '/' between center and radius
    bad_center,     // the center is not a valid hex fingerprint (see center_error)
    bad_radius,     // the radius is not a decimal integer
    radius_range,   // a decimal integer outside 0..64
};

struct BallParse {
    BallParseError error = BallParseError::none;
    ParseError center_error = ParseError::none;
    std::uint64_t center = 0;
    int radius = 0;
};

const char *describe(BallParseError e);

// The center takes what parse_hex takes; the radius is an optional '-' and
// decimal digits, so "-1" and "65" are syntactically fine but out of range.
BallParse parse_ball(std::string_view text) noexcept;

// Writes "<16 hex>/<radius>" and a NUL: at most 16 + 1 + 2 + 1 bytes.
constexpr std::size_t kBallTextSize = 20;
void format_ball(std::uint64_t center, int radius, char out[kBallTextSize]) noexcept;

}  // namespace simhash
