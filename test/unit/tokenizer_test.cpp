#include <gtest/gtest.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <random>
#include <string>
#include <vector>

#include "tokenizer.hpp"

#include "../support/reference_words.hpp"

using simhash::CharClass;

namespace {

struct Collect final : simhash::WordSink {
    std::vector<std::string> words;
    void word(std::string_view w) override { words.emplace_back(w); }
};

std::vector<std::string> words(std::string_view text) {
    Collect c;
    simhash::Tokenizer t(c);
    t.feed(text);
    t.separator();
    return c.words;
}

using W = std::vector<std::string>;


}  // namespace

TEST(Tokenizer, AsciiWordsNumbersUnderscores) {
    EXPECT_EQ(words("Hello, World! foo_bar 42 x2 _ __ 3d 1.5e3"), (W{"hello", "world", "foo_bar", "x2", "3d", "5e3"}));
    EXPECT_EQ(words(""), W{});
    EXPECT_EQ(words("  \t\n 12 345 ... "), W{});
    EXPECT_EQ(words("can't"), (W{"can", "t"}));
}

TEST(Tokenizer, AccentsAndMarksStayInWords) {
    EXPECT_EQ(words("Café naïve"), (W{"café", "naïve"}));
    // Decomposed e + U+0301 COMBINING ACUTE: the mark continues the word.
    EXPECT_EQ(words("Cafe\xCC\x81 ok"), (W{"cafe\xCC\x81", "ok"}));
}

TEST(Tokenizer, FullCaseFolding) {
    EXPECT_EQ(words("STRASSE Straße straße"), (W{"strasse", "strasse", "strasse"}));
    // Greek: capital, small and final sigma all fold to σ.
    EXPECT_EQ(words("ΣΊΣΥΦΟΣ σίσυφος"), (W{"σίσυφοσ", "σίσυφοσ"}));
    // KELVIN SIGN folds to ASCII k; the ligature ﬁ expands.
    EXPECT_EQ(words("\xE2\x84\xAA \xEF\xAC\x81le"), (W{"k", "file"}));
    // Turkish dotted capital I: full default folding gives i + U+0307.
    EXPECT_EQ(words("\xC4\xB0"), (W{"i\xCC\x87"}));
}

TEST(Tokenizer, ScriptsWithoutSpacesAreOneRun) {
    EXPECT_EQ(words("日本語のテキスト。中文"), (W{"日本語のテキスト", "中文"}));
    EXPECT_EQ(words("ภาษาไทย"), (W{"ภาษาไทย"}));
    // ZERO WIDTH NON-JOINER inside a Persian word keeps it whole.
    EXPECT_EQ(words("می\xE2\x80\x8Cخواهم"), (W{"می\xE2\x80\x8Cخواهم"}));
}

TEST(Tokenizer, NumbersInAnyScriptAreDropped) {
    EXPECT_EQ(words("١٢٣ ४२ x١"), (W{"x١"}));
}

TEST(Tokenizer, InvalidUtf8Separates) {
    EXPECT_EQ(words("ab\xFF" "cd"), (W{"ab", "cd"}));
    EXPECT_EQ(words("ab\xC3"), (W{"ab"}));                        // truncated at the end
    EXPECT_EQ(words("ab\xC3x"), (W{"ab", "x"}));                  // truncated before ASCII
    EXPECT_EQ(words("ab\xED\xA0\x80" "cd"), (W{"ab", "cd"}));     // an encoded surrogate
    EXPECT_EQ(words("ab\xC0\xAF" "cd"), (W{"ab", "cd"}));         // overlong '/'
    EXPECT_EQ(words("ab\xF4\x90\x80\x80" "cd"), (W{"ab", "cd"})); // beyond U+10FFFF
    EXPECT_EQ(words(std::string("ab\0cd", 5)), (W{"ab", "cd"}));
}

TEST(Tokenizer, UnassignedCodePointsSeparate) {
    EXPECT_EQ(words("ab\xCD\xB8" "cd"), (W{"ab", "cd"}));  // U+0378 is unassigned
}

TEST(Tokenizer, WordsContinueAcrossPieces) {
    Collect c;
    simhash::Tokenizer t(c);
    t.feed("hel");
    t.feed("LO wor");
    t.feed("\xC3\xA9");
    t.separator();
    t.feed("x");
    t.separator();
    EXPECT_EQ(c.words, (W{"hello", "woré", "x"}));
}

// A word is folded in pieces of 1 MiB: sequences that straddle a piece's end,
// and invalid bytes there, fold as in one piece.
TEST(Tokenizer, LongWordsFoldInPieces) {
    const std::size_t piece = std::size_t{1} << 20;
    const std::string deseret_capital = "\xF0\x90\x90\x80", deseret_small = "\xF0\x90\x90\xA8";
    for (std::size_t before : {piece - 3, piece - 2, piece - 1, piece, 2 * piece - 1}) {
        const std::string word = std::string(before, 'A') + deseret_capital + "\xFF" "\xC3\x89" "STRASSE\xC3\x9F";
        const std::string folded = simhash::fold_case(word);
        EXPECT_EQ(folded, std::string(before, 'a') + deseret_small + "\xC3\xA9" "strassess") << before;
    }
}

// The first poll comes before the first piece; cancel arrives at the second,
// between pieces.
static int g_fold_polls = 0;
static bool cancel_at_second_poll() { return ++g_fold_polls >= 2; }

TEST(Tokenizer, LongWordsAnswerCancel) {
    Collect c;
    simhash::Tokenizer t(c, cancel_at_second_poll);
    std::string word;
    for (int i = 0; i < 600000; ++i) word += "\xC3\x89";  // É: folding goes through ICU
    t.feed(word);
    try {
        t.separator();
        FAIL() << "not cancelled";
    } catch (const simhash::Error &e) {
        EXPECT_EQ(e.kind(), simhash::Error::Kind::cancelled);
    }
    EXPECT_EQ(g_fold_polls, 2);
    EXPECT_TRUE(c.words.empty());
}

TEST(Tokenizer, AsciiFastPathMatchesIcu) {
    for (std::int32_t c = 0; c < 128; ++c) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const bool word = (c >= '0' && c <= '9') || c == '_';
        const CharClass expected = letter ? CharClass::letter : word ? CharClass::word : CharClass::separator;
        EXPECT_EQ(simhash::classify(c), expected) << c;
        const std::string one(1, static_cast<char>(c));
        EXPECT_EQ(simhash::fold_case(one), std::string(1, static_cast<char>(std::tolower(c)))) << c;
    }
    // Long enough for the 64-byte block path, with runs crossing block edges.
    std::mt19937 rng(42);
    const std::string alphabet = "aZz09_ .,-\t\nQxyyyyyyy";
    for (int round = 0; round < 500; ++round) {
        std::string text;
        const int length = static_cast<int>(rng() % 400);
        for (int i = 0; i < length; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
        EXPECT_EQ(words(text), reference_words(text)) << text;
    }
}

TEST(Tokenizer, MixedTextMatchesReference) {
    std::mt19937 rng(7);
    const std::vector<std::string> pieces = {"a", "Z", "9", " ", "word", "Word ", "12 ", "x_y", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "é", "ß", "Σ", "日", "\xCC\x81", "\xFF", "\xC3",
                                             "_", "١", "\xE2\x80\x8C", "ﬁ", ".", "\xF0\x9F\x98\x80", "\xF0\x9D\x90\x80"};
    for (int round = 0; round < 500; ++round) {
        std::string text;
        const int count = static_cast<int>(rng() % 200);
        for (int i = 0; i < count; ++i) text += pieces[rng() % pieces.size()];
        EXPECT_EQ(words(text), reference_words(text));
    }
}

// Words are handed over in batches of up to 256, flushed before a word taken
// another way (capitals across a block edge, non-ASCII): many batches per text,
// each word in its place.
TEST(Tokenizer, BatchesKeepTextOrder) {
    std::mt19937 rng(11);
    const std::vector<std::string> pieces = {"a ", "be ", "Cat ", "dogs. ", "12 ", "x_y ", "é ", "Straße ", "日本 "};
    for (int round = 0; round < 20; ++round) {
        std::string text;
        for (int i = 0; i < 5000; ++i) text += pieces[rng() % (round % 2 ? pieces.size() : 5)];
        EXPECT_EQ(words(text), reference_words(text));
    }
}

// The 64-byte block path: words of every length at every offset, including
// runs that cross a block edge or fill a whole block.
TEST(Tokenizer, BlockEdges) {
    for (std::size_t lead = 0; lead < 70; ++lead) {
        for (std::size_t length : {1u, 2u, 7u, 63u, 64u, 65u, 130u}) {
            for (char c : {'a', 'Q', '7'}) {
                const std::string text = std::string(lead, ' ') + std::string(length, c) + " tail " + std::string(80, '.');
                EXPECT_EQ(words(text), reference_words(text)) << lead << " " << length << " " << c;
                const std::string glued = std::string(lead, 'b') + "\xC3\xA9" + std::string(length, c) + std::string(70, ' ');
                EXPECT_EQ(words(glued), reference_words(glued)) << lead << " " << length << " " << c;
            }
        }
    }
}

TEST(Tokenizer, FoldCaseDropsInvalidBytes) {
    EXPECT_EQ(simhash::fold_case("Ab\xFF" "C"), "abc");
    EXPECT_EQ(simhash::fold_case(""), "");
}

// The scheme treats code points assigned after Unicode 15.0 as separators; an
// older ICU would not know some 15.0 characters and would disagree.
TEST(Tokenizer, IcuKnowsTheSchemeUnicodeVersion) {
    UVersionInfo v;
    u_getUnicodeVersion(v);
    EXPECT_TRUE(v[0] > simhash::kUnicodeMajor || (v[0] == simhash::kUnicodeMajor && v[1] >= simhash::kUnicodeMinor));
}

// A batch filled by the block path (8 blocks of 32 words), then words of the
// byte-wise path: they were written past the batch's end.
TEST(Tokenizer, FullBatchThenByteWiseWord) {
    std::string text;
    for (int i = 0; i < 8 * 32; ++i) text += "a ";
    text += "tail and more words here ";
    EXPECT_EQ(words(text), reference_words(text));
}
