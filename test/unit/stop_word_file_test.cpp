#include <gtest/gtest.h>

#include "stop_word_file.hpp"

using simhash::stop_word_file_words;
using Words = std::vector<std::string>;

TEST(StopWordFile, OneWordPerLine) {
    EXPECT_EQ(stop_word_file_words("i\nme\nmy\n"), (Words{"i", "me", "my"}));
    EXPECT_EQ(stop_word_file_words("last line without newline"), (Words{"last"}));
}

TEST(StopWordFile, BlanksEndAWordAndBlankLinesAreSkipped) {
    EXPECT_EQ(stop_word_file_words("og\t| and\r\n\n   indented\n\r\nx"), (Words{"og", "x"}));
    EXPECT_EQ(stop_word_file_words(""), Words{});
    EXPECT_EQ(stop_word_file_words("\n\n"), Words{});
}

TEST(StopWordFile, KeepsUtf8Bytes) {
    EXPECT_EQ(stop_word_file_words("\xd0\xb8\n\xc3\xa5\n"), (Words{"\xd0\xb8", "\xc3\xa5"}));
}
