// Fuzzes the text pipeline: options come from the first three bytes, the rest is
// the document. Never crash or read out of bounds (ASan); explain_text must
// account for fingerprint_text exactly; every feature must be non-empty valid
// UTF-8 hashed with the seed; splitting the text into pieces at a code-point
// boundary must not change the words, nor may the fast paths (ASCII table,
// 64-byte blocks) differ from the rules applied one code point at a time.
#include <unicode/utf8.h>

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "feature_hash.hpp"
#include "text_features.hpp"
#include "tokenizer.hpp"

#include "../support/reference_words.hpp"

namespace {

struct Collect final : simhash::WordSink {
    std::vector<std::string> words;
    void word(std::string_view w) override { words.emplace_back(w); }
};


bool valid_utf8(std::string_view s) {
    const auto *p = reinterpret_cast<const std::uint8_t *>(s.data());
    const auto n = static_cast<std::int32_t>(s.size());
    for (std::int32_t i = 0; i < n;) {
        UChar32 c;
        U8_NEXT(p, i, n, c);
        if (c < 0) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size < 3) return 0;
    static const simhash::StopWords stop({"the", "a", "of", "and", "straße"});
    simhash::TextOptions o;
    o.tokens = data[0] & 1 ? simhash::TextOptions::Tokens::chars : simhash::TextOptions::Tokens::words;
    o.weighting = static_cast<simhash::TextOptions::Weighting>((data[0] >> 1) % 3);
    o.html = (data[0] >> 3) & 1;
    if (((data[0] >> 4) & 1) && o.tokens == simhash::TextOptions::Tokens::words) o.stop_words = &stop;
    o.shingle = 1 + data[1] % simhash::kMaxShingle;
    o.seed = data[2];
    const std::string_view text(reinterpret_cast<const char *>(data + 3), size - 3);

    const std::uint64_t fp = simhash::fingerprint_text(text, o, nullptr);
    const auto rows = simhash::explain_text(text, o, nullptr);
    simhash::Vote vote;
    std::unordered_set<std::uint64_t> hashes;
    for (const auto &r : rows) {
        if (r.feature.empty() || !valid_utf8(r.feature)) __builtin_trap();
        if (r.hash != simhash::feature_hash(r.feature, o.seed)) __builtin_trap();
        if (r.weight <= 0 || !hashes.insert(r.hash).second) __builtin_trap();
        vote.add(r.hash, r.weight);
    }
    if (vote.fingerprint() != fp) __builtin_trap();
    if (rows.empty() && fp != 0) __builtin_trap();

    // Whole versus two pieces split at a code-point boundary.
    std::size_t cut = (data[1] * 131u + data[2]) % (text.size() + 1);
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) ++cut;
    Collect whole, pieces;
    simhash::Tokenizer a(whole), b(pieces);
    a.feed(text);
    a.separator();
    b.feed(text.substr(0, cut));
    b.feed(text.substr(cut));
    b.separator();
    if (whole.words != pieces.words) __builtin_trap();
    if (whole.words != reference_words(text)) __builtin_trap();
    return 0;
}
