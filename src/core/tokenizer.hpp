// Words of a UTF-8 text (scheme "simhash-text-v1", docs/algorithm.md): maximal
// runs of word characters (Alphabetic, marks, decimal digits, connector
// punctuation, join controls) holding at least one Alphabetic character, each
// given with full Unicode case folding. Everything else, including invalid
// UTF-8, separates words.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cpu_features.hpp"
#include "error.hpp"

namespace simhash {

// Receives each word, case-folded, as UTF-8 (valid by construction).
class WordSink {
public:
    virtual void word(std::string_view folded) = 0;
    // Consecutive words in text order, valid for the call only. A sink that
    // can do better than a call per word overrides it.
    virtual void words(const std::string_view *folded, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) word(folded[i]);
    }

protected:
    ~WordSink() = default;
};

// Streaming: text arrives in pieces, and a word may continue across pieces.
class Tokenizer {
public:
    // `interrupted` is asked between pieces of a very long word.
    explicit Tokenizer(WordSink &sink, InterruptCheck interrupted = nullptr) : sink_(sink), interrupted_(interrupted) {}

    // A piece must not split a valid UTF-8 sequence: each piece is decoded on its
    // own, so a sequence cut in two would decode as two invalid bytes.
    void feed(std::string_view piece);
    // Ends the current word (an HTML tag, the end of the text).
    void separator() {
        if (length_ != 0) end_word();
    }

private:
    // Most words are handed over in batches: one virtual call per batch instead
    // of per word, and sinks see enough words at once to reorder their work.
    static constexpr std::size_t kBatchWords = 256;
    // (ascii_block may leave the batch full.)
    void batch(std::string_view word) {
        if (batched_ == kBatchWords) flush();
        batch_[batched_++] = word;
    }
    void flush();
    void end_word();
    const unsigned char *feed_non_ascii(const unsigned char *p, const unsigned char *end);
#ifdef __SSE2__
    const unsigned char *ascii_block(const unsigned char *p);
    // ascii_block's blocks, lower-cased, for as long as the batch refers to them.
    static constexpr std::size_t kBatchBlocks = 32;
    char lower_[kBatchBlocks * 64];
    std::size_t blocks_ = 0;
#endif
#ifdef SIMHASH_X86_DISPATCH
    // Whether ascii_block classifies with AVX2: asked once per tokenizer.
    const bool avx2_ = cpu_has_avx2();
#endif
    char *grow(std::size_t extra);

    WordSink &sink_;
    const InterruptCheck interrupted_;
    // Views into the piece being fed or into lower_: flushed before feed() returns.
    std::array<std::string_view, kBatchWords> batch_;
    std::size_t batched_ = 0;
    // The current word: ASCII already lower-cased, other code points as they came.
    // A plain buffer: std::string's resize zero-fills, which showed in profiles.
    std::vector<char> word_;
    std::size_t length_ = 0;
    bool has_letter_ = false;
    bool non_ascii_ = false;
    std::string folded_;
    std::vector<char16_t> utf16_, utf16_folded_;
};

// How the tokenizer sees one code point.
enum class CharClass : std::uint8_t { separator, word, letter };
CharClass classify(std::int32_t code_point);

// Full case folding (Unicode CaseFolding.txt, statuses C and F) of valid UTF-8;
// invalid bytes are dropped. The tokenizer folds words with it; StopWords folds
// its entries with it.
std::string fold_case(std::string_view utf8);

// The newest Unicode version whose characters the scheme knows: code points
// assigned later are separators, so a newer ICU cannot change a fingerprint.
constexpr int kUnicodeMajor = 15;
constexpr int kUnicodeMinor = 0;

}  // namespace simhash
