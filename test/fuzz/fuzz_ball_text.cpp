// Fuzzes the text input of simhash_ball: never crash; anything accepted must
// print back to a form that parses to the same center and radius.
#include <cstdint>
#include <string_view>

#include "ball_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char *>(data), size);
    simhash::BallParse b = simhash::parse_ball(text);
    if (b.error != simhash::BallParseError::none) return 0;
    if (b.radius < 0 || b.radius > simhash::kMaxRadius) __builtin_trap();
    char out[simhash::kBallTextSize];
    simhash::format_ball(b.center, b.radius, out);
    simhash::BallParse again = simhash::parse_ball(out);
    if (again.error != simhash::BallParseError::none || again.center != b.center || again.radius != b.radius)
        __builtin_trap();
    return 0;
}
