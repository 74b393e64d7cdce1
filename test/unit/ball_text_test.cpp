#include <gtest/gtest.h>

#include "ball_text.hpp"

using simhash::BallParseError;

TEST(BallText, ParsesAndFormats) {
    auto b = simhash::parse_ball("0123456789ABCDEF/3");
    ASSERT_EQ(b.error, BallParseError::none);
    EXPECT_EQ(b.center, 0x0123456789abcdefULL);
    EXPECT_EQ(b.radius, 3);
    b = simhash::parse_ball("0xffffffffffffffff/64");
    ASSERT_EQ(b.error, BallParseError::none);
    EXPECT_EQ(b.radius, 64);
    EXPECT_EQ(simhash::parse_ball("0000000000000000/-0").radius, 0);
    char out[simhash::kBallTextSize];
    simhash::format_ball(0x0123456789abcdefULL, 3, out);
    EXPECT_STREQ(out, "0123456789abcdef/3");
    simhash::format_ball(~0ULL, 64, out);
    EXPECT_STREQ(out, "ffffffffffffffff/64");
}

TEST(BallText, Rejects) {
    EXPECT_EQ(simhash::parse_ball("").error, BallParseError::no_separator);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef").error, BallParseError::no_separator);
    auto b = simhash::parse_ball("0123456789abcdeg/3");
    EXPECT_EQ(b.error, BallParseError::bad_center);
    EXPECT_EQ(b.center_error, simhash::ParseError::bad_character);
    EXPECT_EQ(simhash::parse_ball("/3").error, BallParseError::bad_center);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/").error, BallParseError::bad_radius);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/-").error, BallParseError::bad_radius);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/3 ").error, BallParseError::bad_radius);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/3/4").error, BallParseError::bad_radius);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/65").error, BallParseError::radius_range);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/-1").error, BallParseError::radius_range);
    EXPECT_EQ(simhash::parse_ball("0123456789abcdef/99999999999999999999").error, BallParseError::radius_range);
}
