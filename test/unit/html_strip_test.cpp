#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "html_strip.hpp"

namespace {

// Text runs as they come, '|' for each separator.
struct Collect final : simhash::HtmlSink {
    std::string out;
    void text(std::string_view run) override { out += run; }
    void separator() override { out += '|'; }
};

std::string strip(std::string_view html) {
    Collect c;
    simhash::strip_html(html, c, nullptr);
    return c.out;
}

}  // namespace

TEST(HtmlStrip, TagsSeparate) {
    EXPECT_EQ(strip("<p>Hello <b>Wor</b>ld</p>"), "|Hello |Wor|ld|");
    EXPECT_EQ(strip("plain"), "plain");
    EXPECT_EQ(strip(""), "");
    EXPECT_EQ(strip("<a href='x>y' title=\"a>b\">link</a>"), "|link|");
    EXPECT_EQ(strip("<br/>x<img src=a.png />y"), "|x|y");
}

TEST(HtmlStrip, LiteralLessThan) {
    EXPECT_EQ(strip("a < b <3 x<"), "a < b <3 x<");
    EXPECT_EQ(strip("a </ b"), "a </ b");
}

TEST(HtmlStrip, ScriptsStylesCommentsDeclarations) {
    EXPECT_EQ(strip("a<script>var x = '<b>no</b>';</script>b"), "a|b");
    EXPECT_EQ(strip("a<SCRIPT type=x>if (a<b) y()</Script >b"), "a|b");
    EXPECT_EQ(strip("a<style>p { color: red }</style>b"), "a|b");
    EXPECT_EQ(strip("a<scripts>kept</scripts>b"), "a|kept|b");
    EXPECT_EQ(strip("a<script>x</scriptx>y</script>b"), "a|b");
    EXPECT_EQ(strip("a<!-- <p>hidden</p> -->b"), "a|b");
    EXPECT_EQ(strip("<!DOCTYPE html><?xml version='1.0'?>x"), "||x");
}

TEST(HtmlStrip, Entities) {
    EXPECT_EQ(strip("&amp;&lt;&gt;&quot;&apos;"), "&<>\"'");
    EXPECT_EQ(strip("a&nbsp;b"), "a\xC2\xA0" "b");
    EXPECT_EQ(strip("caf&eacute; &Eacute;T&Eacute;"), "café ÉTÉ");
    EXPECT_EQ(strip("&#65;&#x42;&#X43&#100"), "ABCd");
    EXPECT_EQ(strip("&#x1F600;"), "\xF0\x9F\x98\x80");
    EXPECT_EQ(strip("&unknown; & &; &#; &#x; &amp"), "&unknown; & &; &#; &#x; &amp");
}

TEST(HtmlStrip, BadNumericReferencesBecomeReplacementCharacter) {
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(strip("&#0;"), fffd);
    EXPECT_EQ(strip("&#xD800;"), fffd);
    EXPECT_EQ(strip("&#x110000;"), fffd);
    EXPECT_EQ(strip("&#99999999999999999999999;"), fffd);
}

TEST(HtmlStrip, TruncatedMarkupIsDropped) {
    EXPECT_EQ(strip("a<b"), "a|");
    EXPECT_EQ(strip("a<b title=\"x"), "a|");
    EXPECT_EQ(strip("a<b title="), "a|");
    EXPECT_EQ(strip("a<!-- b"), "a|");
    EXPECT_EQ(strip("a<!"), "a|");
    EXPECT_EQ(strip("a<script>never closed"), "a|");
    EXPECT_EQ(strip("a<script>x</scr"), "a|");
    EXPECT_EQ(strip("a<script>x</script"), "a|");
    EXPECT_EQ(strip("&#"), "&#");
    EXPECT_EQ(strip("&#x"), "&#x");
    EXPECT_EQ(strip("&eacute"), "&eacute");
    EXPECT_EQ(strip("<"), "<");
}

TEST(HtmlStrip, InterruptCancels) {
    Collect c;
    try {
        simhash::strip_html("<p>text</p>", c, [] { return true; });
        FAIL() << "no exception";
    } catch (const simhash::Error &e) {
        EXPECT_EQ(e.kind(), simhash::Error::Kind::cancelled);
    }
}

// Long text is handed over in pieces of about 16 KB, never inside a UTF-8
// sequence, so the tokenizer's work between polls stays bounded.
TEST(HtmlStrip, LongTextInPiecesThatKeepSequencesWhole) {
    struct Pieces final : simhash::HtmlSink {
        std::vector<std::string> runs;
        void text(std::string_view run) override { runs.emplace_back(run); }
        void separator() override {}
    } c;
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "\xC3\xA9\xE6\x97\xA5x";  // é 日 x
    simhash::strip_html(text, c, nullptr);
    std::string joined;
    for (const auto &r : c.runs) {
        EXPECT_LE(r.size(), 16384u + 3);
        EXPECT_NE(static_cast<unsigned char>(r[0]) & 0xC0, 0x80);
        joined += r;
    }
    EXPECT_GT(c.runs.size(), 5u);
    EXPECT_EQ(joined, text);
}
