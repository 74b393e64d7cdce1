#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "feature_hash.hpp"
#include "text_features.hpp"

using simhash::FeatureRow;
using simhash::TextOptions;

namespace {

std::uint64_t fp(std::string_view text, const TextOptions &o = TextOptions{}) {
    return simhash::fingerprint_text(text, o, nullptr);
}

std::vector<std::string> features(std::string_view text, const TextOptions &o = TextOptions{}) {
    std::vector<std::string> out;
    for (const auto &row : simhash::explain_text(text, o, nullptr)) out.push_back(row.feature);
    return out;
}

std::uint64_t from_rows(const std::vector<FeatureRow> &rows) {
    simhash::Vote v;
    for (const auto &r : rows) v.add(r.hash, r.weight);
    return v.fingerprint();
}

TextOptions words(int n) {
    TextOptions o;
    o.shingle = n;
    return o;
}

TextOptions chars(int n) {
    TextOptions o;
    o.tokens = TextOptions::Tokens::chars;
    o.shingle = n;
    return o;
}

using F = std::vector<std::string>;

const char kSample[] =
    "PEP 8 -- Style Guide for Python Code. This document gives coding conventions for the Python code "
    "comprising the standard library in the main Python distribution. Naïve café, STRASSE, Σίσυφος.";

}  // namespace

TEST(TextFeatures, DefaultsAreWordsUnigramTfNoStopWords) {
    const TextOptions o;
    EXPECT_EQ(o.tokens, TextOptions::Tokens::words);
    EXPECT_EQ(o.shingle, 1);
    EXPECT_EQ(o.weighting, TextOptions::Weighting::tf);
    EXPECT_EQ(o.stop_words, nullptr);
    EXPECT_FALSE(o.html);
    EXPECT_EQ(o.seed, 0u);
    EXPECT_EQ(simhash::kDefaultCharShingle, 3);
}

// The scheme is frozen: a change to any rule that moves this value is a new scheme.
TEST(TextFeatures, PinnedVectors) {
    EXPECT_EQ(fp(kSample), 0xc0128b431666b80cULL);
    EXPECT_EQ(fp(kSample, chars(3)), 0xfeb789028d6237f7ULL);
    EXPECT_EQ(simhash::feature_hash("hello", 0), 0x9555e8555c62dcfdULL);
}

TEST(TextFeatures, EmptyDocumentGivesZero) {
    EXPECT_EQ(fp(""), 0u);
    EXPECT_EQ(fp("123 456 ... !!!"), 0u);
    EXPECT_EQ(fp("", chars(3)), 0u);
    TextOptions html;
    html.html = true;
    EXPECT_EQ(fp("<p><!-- x --></p>", html), 0u);
    EXPECT_TRUE(simhash::explain_text("", TextOptions{}, nullptr).empty());
}

TEST(TextFeatures, TfIsTheVoteOfEveryOccurrence) {
    simhash::Vote v;
    for (const char *w : {"a", "b", "a", "caf\xC3\xA9"}) v.add_unit(simhash::feature_hash(w, 0));
    EXPECT_EQ(fp("A b a CAFÉ"), v.fingerprint());
    const auto rows = simhash::explain_text("A b a CAFÉ", TextOptions{}, nullptr);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].feature, "a");
    EXPECT_EQ(rows[0].hash, simhash::feature_hash("a", 0));
    EXPECT_EQ(rows[0].weight, 2 * simhash::kUnitWeight);
    EXPECT_EQ(rows[1].weight, simhash::kUnitWeight);
}

TEST(TextFeatures, Weightings) {
    TextOptions o;
    o.weighting = TextOptions::Weighting::binary;
    auto rows = simhash::explain_text("x y x x", o, nullptr);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].weight, simhash::kUnitWeight);
    o.weighting = TextOptions::Weighting::log_tf;
    rows = simhash::explain_text("x y x x", o, nullptr);
    EXPECT_EQ(rows[0].weight, simhash::log1p_weight(3));
    EXPECT_EQ(rows[1].weight, simhash::log1p_weight(1));
    // Binary: repeating a word changes nothing.
    o.weighting = TextOptions::Weighting::binary;
    EXPECT_EQ(fp("x y z", o), fp("x x x y z z", o));
    EXPECT_NE(fp("x y z"), fp("x x x x x x x y z z"));
}

TEST(TextFeatures, WordShingles) {
    EXPECT_EQ(features("The quick, brown fox", words(2)), (F{"the quick", "quick brown", "brown fox"}));
    EXPECT_EQ(features("The quick brown fox", words(3)), (F{"the quick brown", "quick brown fox"}));
    EXPECT_EQ(features("The quick brown fox", words(5)), (F{"the quick brown fox"}));
    EXPECT_EQ(features("a b a b a", words(2)), (F{"a b", "b a"}));
    EXPECT_EQ(features("42 <> 7", words(2)), F{});
}

TEST(TextFeatures, CharacterGramsStayInsideWords) {
    EXPECT_EQ(features("日本語のテキスト", chars(3)), (F{"日本語", "本語の", "語のテ", "のテキ", "テキス", "キスト"}));
    EXPECT_EQ(features("abcd EF 12", chars(3)), (F{"abc", "bcd", "ef"}));
    EXPECT_EQ(features("abc", chars(3)), (F{"abc"}));
    EXPECT_EQ(features("Straße", chars(5)), (F{"stras", "trass", "rasse"}));  // n-grams of the folded word
    EXPECT_EQ(features("ab", chars(1)), (F{"a", "b"}));
}

TEST(TextFeatures, StopWordsRemovedBeforeShingling) {
    const simhash::StopWords stop({"The", "A", "Straße"});
    EXPECT_TRUE(stop.contains("the"));
    EXPECT_TRUE(stop.contains("strasse"));
    EXPECT_FALSE(stop.contains("The"));
    EXPECT_EQ(stop.size(), 3u);
    TextOptions o = words(2);
    o.stop_words = &stop;
    EXPECT_EQ(features("The cat and a DOG, STRASSE", o), (F{"cat and", "and dog"}));
    o.shingle = 1;
    EXPECT_EQ(features("the a THE", o), F{});
    EXPECT_EQ(fp("the a THE", o), 0u);
}

TEST(TextFeatures, HtmlOption) {
    TextOptions o;
    o.html = true;
    EXPECT_EQ(features("<p>Caf&eacute; <b>au</b>&nbsp;lait<script>x()</script></p><!-- c -->", o),
              (F{"café", "au", "lait"}));
    EXPECT_EQ(features("<b>Wor</b>ld", o), (F{"wor", "ld"}));
    EXPECT_EQ(features("<b>Wor</b>ld"), (F{"b", "wor", "ld"}));
}

TEST(TextFeatures, SeedChangesHashes) {
    TextOptions o;
    o.seed = 1;
    EXPECT_NE(fp(kSample), fp(kSample, o));
    EXPECT_EQ(simhash::explain_text("word", o, nullptr)[0].hash, simhash::feature_hash("word", 1));
}

TEST(TextFeatures, Deterministic) {
    EXPECT_EQ(fp(kSample), fp(std::string(kSample)));
    EXPECT_EQ(simhash::explain_text(kSample, chars(4), nullptr).size(),
              simhash::explain_text(kSample, chars(4), nullptr).size());
}

TEST(TextFeatures, ExplainReproducesFingerprint) {
    const simhash::StopWords stop({"the", "for"});
    for (auto weighting : {TextOptions::Weighting::tf, TextOptions::Weighting::binary, TextOptions::Weighting::log_tf}) {
        for (int n : {1, 2, 3, 16}) {
            for (TextOptions o : {words(n), chars(n)}) {
                o.weighting = weighting;
                EXPECT_EQ(from_rows(simhash::explain_text(kSample, o, nullptr)), fp(kSample, o));
                if (o.tokens == TextOptions::Tokens::words) {
                    o.stop_words = &stop;
                    EXPECT_EQ(from_rows(simhash::explain_text(kSample, o, nullptr)), fp(kSample, o));
                }
            }
        }
    }
}

// Plain text goes to the tokenizer in 16 KB pieces: a piece boundary inside a
// UTF-8 sequence must not split the word.
TEST(TextFeatures, LongTextPiecesKeepSequencesWhole) {
    std::string text;
    for (int i = 0; i < 10000; ++i) text += "xxx\xC3\xA9 ";  // 6 bytes: 16384 % 6 lands on \xA9
    for (bool html : {false, true}) {
        TextOptions o;
        o.html = html;
        const auto rows = simhash::explain_text(text, o, nullptr);
        ASSERT_EQ(rows.size(), 1u);
        EXPECT_EQ(rows[0].feature, "xxx\xC3\xA9");
        EXPECT_EQ(rows[0].weight, 10000 * simhash::kUnitWeight);
    }
}

TEST(TextFeatures, ValidateNamesTheOption) {
    auto message = [](const TextOptions &o) -> std::string {
        try {
            simhash::validate(o);
        } catch (const simhash::Error &e) {
            EXPECT_EQ(e.kind(), simhash::Error::Kind::invalid_argument);
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(message(words(0)), "shingle must be between 1 and 16, got 0");
    EXPECT_EQ(message(words(17)), "shingle must be between 1 and 16, got 17");
    EXPECT_EQ(message(words(16)), "");
    const simhash::StopWords stop({"a"});
    TextOptions o = chars(3);
    o.stop_words = &stop;
    EXPECT_NE(message(o).find("stop words"), std::string::npos);
    TextOptions bad;
    bad.weighting = static_cast<TextOptions::Weighting>(9);
    EXPECT_NE(message(bad).find("weighting"), std::string::npos);
    bad = TextOptions{};
    bad.tokens = static_cast<TextOptions::Tokens>(9);
    EXPECT_NE(message(bad).find("tokens"), std::string::npos);
    EXPECT_THROW(fp("x", words(0)), simhash::Error);
    EXPECT_THROW(simhash::explain_text("x", words(0), nullptr), simhash::Error);
}

TEST(TextFeatures, InterruptCancels) {
    const std::string text(100000, 'a');
    for (bool html : {false, true}) {
        TextOptions o;
        o.html = html;
        try {
            simhash::fingerprint_text(text, o, [] { return true; });
            FAIL() << "no exception";
        } catch (const simhash::Error &e) {
            EXPECT_EQ(e.kind(), simhash::Error::Kind::cancelled);
        }
        EXPECT_THROW(simhash::explain_text(text, o, [] { return true; }), simhash::Error);
    }
}

// Reading the text polls once per 16 kB piece; one long word then makes a
// feature per character (tokens = chars) or one long shingle per word, and
// handing those on must poll again.
static int g_polls = 0, g_polls_allowed = 0;
static bool cancel_after_allowed_polls() { return ++g_polls > g_polls_allowed; }

TEST(TextFeatures, FeaturesOfOneLongWordAnswerCancel) {
    const std::string text = std::string(1 << 21, 'a') + " b c";
    TextOptions chars;
    chars.tokens = TextOptions::Tokens::chars;
    TextOptions shingles;
    shingles.shingle = 3;
    for (const TextOptions &o : {chars, shingles}) {
        g_polls = 0;
        g_polls_allowed = 1 << 30;
        simhash::fingerprint_text(text, o, cancel_after_allowed_polls);
        const int reading_polls = static_cast<int>((text.size() + 16383) / 16384);
        ASSERT_GT(g_polls, reading_polls) << "the features were handed on without a poll";
        g_polls = 0;
        g_polls_allowed = reading_polls;
        EXPECT_THROW(simhash::fingerprint_text(text, o, cancel_after_allowed_polls), simhash::Error);
    }
}

// Many distinct features, some repeated: the per-feature counts of binary and
// log_tf (an open-addressing table that grows) must match explain_text's.
TEST(TextFeatures, ManyDistinctFeaturesCountedExactly) {
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "w" + std::to_string(i % 7001) + "x ";
    for (auto weighting : {TextOptions::Weighting::binary, TextOptions::Weighting::log_tf}) {
        TextOptions o;
        o.weighting = weighting;
        const auto rows = simhash::explain_text(text, o, nullptr);
        ASSERT_EQ(rows.size(), 7001u);
        EXPECT_EQ(from_rows(rows), fp(text, o));
    }
}

TEST(TextFeatures, CharacterGramsMayBeDigitsInsideAWord) {
    EXPECT_EQ(features("x123 456", chars(3)), (F{"x12", "123"}));
}
