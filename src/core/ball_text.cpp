#include "ball_text.hpp"

namespace simhash {

const char *describe(BallParseError e) {
    switch (e) {
    case BallParseError::none: return "Valid";
    case BallParseError::no_separator: return "Missing \"/\" between center and radius";
    case BallParseError::bad_center: return "Invalid center";
    case BallParseError::bad_radius: return "The radius is not an integer";
    case BallParseError::radius_range: return "The radius is outside 0..64";
    }
    return "Invalid";
}

BallParse parse_ball(std::string_view text) noexcept {
    BallParse result;
    std::size_t slash = text.find('/');
    if (slash == std::string_view::npos) {
        result.error = BallParseError::no_separator;
        return result;
    }
    // Plain pointer arithmetic rather than substr(), which may throw: the
    // glue calls this outside any C++ exception guard.
    result.center_error = parse_hex(std::string_view(text.data(), slash), &result.center);
    if (result.center_error != ParseError::none) {
        result.error = BallParseError::bad_center;
        return result;
    }
    std::string_view digits(text.data() + slash + 1, text.size() - slash - 1);
    bool negative = !digits.empty() && digits[0] == '-';
    if (negative) digits.remove_prefix(1);
    if (digits.empty()) {
        result.error = BallParseError::bad_radius;
        return result;
    }
    // Accumulate with saturation: any value above 64 is out of range, however long.
    int value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') {
            result.error = BallParseError::bad_radius;
            return result;
        }
        if (value <= kMaxRadius) value = value * 10 + (c - '0');
    }
    if (negative && value != 0) {
        result.error = BallParseError::radius_range;
        return result;
    }
    if (value > kMaxRadius) {
        result.error = BallParseError::radius_range;
        return result;
    }
    result.radius = value;
    return result;
}

void format_ball(std::uint64_t center, int radius, char out[kBallTextSize]) noexcept {
    format_hex(center, out);
    char *p = out + 16;
    *p++ = '/';
    if (radius >= 10) *p++ = static_cast<char>('0' + radius / 10);
    *p++ = static_cast<char>('0' + radius % 10);
    *p = '\0';
}

}  // namespace simhash
