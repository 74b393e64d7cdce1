#include "tokenizer.hpp"

#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <climits>

#include "ascii_masks.hpp"
#include "error.hpp"

namespace simhash {

namespace {

// The ASCII fast path: the same answers as classify() (a unit test checks), one
// table look-up per byte. kNonAscii sends the byte to the ICU path.
// Bits: kWord for every word character, kLetter and kUpper on top for letters.
constexpr std::uint8_t kSep = 0, kWord = 1, kLetter = 2, kUpper = 4, kNonAscii = 0xFF;

struct AsciiTables {
    std::uint8_t cls[256];
    char lower[128];
    constexpr AsciiTables() : cls(), lower() {
        for (int b = 0; b < 256; ++b) {
            std::uint8_t c = kSep;
            if (b >= 0x80) c = kNonAscii;
            else if (b >= 'a' && b <= 'z') c = kWord | kLetter;
            else if (b >= 'A' && b <= 'Z') c = kWord | kLetter | kUpper;
            else if ((b >= '0' && b <= '9') || b == '_') c = kWord;
            cls[b] = c;
            if (b < 128) lower[b] = static_cast<char>(b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b);
        }
    }
};
constexpr AsciiTables kAscii;

bool known_to_scheme(UChar32 c) {
    UVersionInfo age;
    u_charAge(c, age);
    return age[0] < kUnicodeMajor || (age[0] == kUnicodeMajor && age[1] <= kUnicodeMinor);
}

CharClass classify_icu(UChar32 c) {
    // Unassigned code points have age 0.0 and category Cn: separators below.
    if (!known_to_scheme(c)) return CharClass::separator;
    if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC)) return CharClass::letter;
    switch (u_charType(c)) {
        case U_NON_SPACING_MARK:
        case U_ENCLOSING_MARK:
        case U_COMBINING_SPACING_MARK:
        case U_DECIMAL_DIGIT_NUMBER:
        case U_CONNECTOR_PUNCTUATION:
            return CharClass::word;
        default:
            break;
    }
    return u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL) ? CharClass::word : CharClass::separator;
}

// Three ICU property look-ups per code point are slow for CJK text: the Basic
// Multilingual Plane is classified once per process.
struct BmpClasses {
    std::array<CharClass, 0x10000> cls;
    BmpClasses() {
        for (UChar32 c = 0; c < 0x10000; ++c) cls[c] = classify_icu(c);
    }
};

void append_utf8(std::string &out, UChar32 c) {
    char buf[U8_MAX_LENGTH];
    std::int32_t n = 0;
    UBool error = false;
    U8_APPEND(reinterpret_cast<std::uint8_t *>(buf), n, U8_MAX_LENGTH, c, error);
    if (!error) out.append(buf, static_cast<std::size_t>(n));
}

// Input bytes folded per ICU call. Default full folding maps each code point
// on its own, so pieces that end on code point boundaries fold as the whole
// would; between them a word of hundreds of megabytes answers cancel, and
// ICU's int32 lengths and the scratch buffers stay small.
constexpr std::size_t kFoldPieceBytes = std::size_t{1} << 20;

// Folds `utf8` (invalid bytes dropped) into `out`, through UTF-16 because
// ICU's full folding (ß -> ss) works on UTF-16 strings only.
void fold_into(std::string_view utf8, std::string &out, std::vector<char16_t> &utf16, std::vector<char16_t> &folded,
               InterruptCheck interrupted) {
    out.clear();
    const auto *s = reinterpret_cast<const std::uint8_t *>(utf8.data());
    for (std::size_t i = 0; i < utf8.size();) {
        if (interrupted && interrupted()) throw Error(Error::Kind::cancelled, "canceling case folding");
        // U8_NEXT reads a sequence whole, so a piece may end a few bytes late.
        const std::size_t piece_end = std::min(utf8.size(), i + kFoldPieceBytes);
        const std::size_t readable = std::min(utf8.size() - i, kFoldPieceBytes + U8_MAX_LENGTH);
        const std::uint8_t *piece = s + i;
        std::int32_t j = 0;
        utf16.clear();
        while (i + static_cast<std::size_t>(j) < piece_end) {
            UChar32 c;
            U8_NEXT(piece, j, static_cast<std::int32_t>(readable), c);
            if (c < 0) continue;
            if (U_IS_BMP(c)) {
                utf16.push_back(static_cast<char16_t>(c));
            } else {
                utf16.push_back(static_cast<char16_t>(U16_LEAD(c)));
                utf16.push_back(static_cast<char16_t>(U16_TRAIL(c)));
            }
        }
        i += static_cast<std::size_t>(j);
        if (utf16.empty()) continue;  // ICU rejects a null source
        // Full folding expands a UTF-16 unit into at most three.
        folded.resize(utf16.size() * 3 + 1);
        UErrorCode status = U_ZERO_ERROR;
        const std::int32_t n = u_strFoldCase(folded.data(), static_cast<std::int32_t>(folded.size()), utf16.data(),
                                             static_cast<std::int32_t>(utf16.size()), U_FOLD_CASE_DEFAULT, &status);
        if (U_FAILURE(status)) throw Error(Error::Kind::limit_exceeded, u_errorName(status));
        for (std::int32_t k = 0; k < n;) {
            UChar32 c;
            U16_NEXT(folded.data(), k, n, c);
            append_utf8(out, c);
        }
    }
}

}  // namespace

CharClass classify(std::int32_t code_point) {
    if (code_point < 0 || code_point > 0x10FFFF) return CharClass::separator;
    if (code_point < 0x10000) {
        static const BmpClasses bmp;
        return bmp.cls[static_cast<std::size_t>(code_point)];
    }
    return classify_icu(code_point);
}

std::string fold_case(std::string_view utf8) {
    std::string out;
    std::vector<char16_t> utf16, folded;
    fold_into(utf8, out, utf16, folded, nullptr);
    return out;
}

char *Tokenizer::grow(std::size_t extra) {
    if (word_.size() - length_ < extra) word_.resize(std::max(word_.size() * 2, length_ + extra + 64));
    char *out = word_.data() + length_;
    length_ += extra;
    return out;
}

#ifdef __SSE2__
// 64 ASCII bytes at a time, word boundaries from bit masks instead of a branch
// per byte, and words taken from a lower-cased copy of the block: no branch on
// capitals, no copy per capitalized word. Only with no word in progress.
// Returns where the byte-wise path must go on: p + 64, or the start of a run
// that may continue past the block; nullptr when the block holds non-ASCII bytes.
const unsigned char *Tokenizer::ascii_block(const unsigned char *p) {
    // A block holds at most 32 words.
    if (blocks_ == kBatchBlocks || batched_ > kBatchWords - 32) flush();
    char *const lower = lower_ + 64 * blocks_;
#ifdef SIMHASH_X86_DISPATCH
    const AsciiMasks m = avx2_ ? ascii_masks_avx2(p, lower) : ascii_masks_sse2(p, lower);
#else
    const AsciiMasks m = ascii_masks_sse2(p, lower);
#endif
    if (m.non_ascii != 0) return nullptr;
    ++blocks_;
    std::uint64_t w = m.word;
    const unsigned char *resume = p + 64;
    if (w >> 63) {
        if (~w == 0) return p;  // one run fills the block
        const int last = 64 - __builtin_clzll(~w);
        resume = p + last;
        w &= (std::uint64_t{1} << last) - 1;
    }
    // First and last byte of every run, walked as two independent bit sets: the
    // loop carries no chain of dependent instructions from one word to the next.
    std::uint64_t starts = w & ~(w << 1), ends = w & ~(w >> 1);
    std::size_t n = batched_;
    while (starts != 0) {
        const int first = __builtin_ctzll(starts), last = __builtin_ctzll(ends);
        starts &= starts - 1;
        ends &= ends - 1;
        const std::uint64_t run = (std::uint64_t{2} << last) - (std::uint64_t{1} << first);
        batch_[n] = std::string_view(lower + first, static_cast<std::size_t>(last - first + 1));
        n += (m.letter & run) != 0;  // a number is no word
    }
    batched_ = n;
    return resume;
}
#endif

void Tokenizer::feed(std::string_view piece) {
    const auto *p = reinterpret_cast<const unsigned char *>(piece.data());
    const auto *const end = p + piece.size();
#ifdef __SSE2__
    const unsigned char *ascii_from = p;  // before it, a block with non-ASCII bytes
#endif
    while (p < end) {
#ifdef __SSE2__
        if (length_ == 0 && p >= ascii_from && end - p >= 64) {
            const unsigned char *next = ascii_block(p);
            if (next == nullptr) {
                ascii_from = p + 64;
            } else if (next != p) {
                p = next;
                continue;
            }
        }
#endif
        std::uint8_t cls = kAscii.cls[*p];
        if (cls == kSep) {
            if (length_ != 0) end_word();
            do ++p;
            while (p < end && kAscii.cls[*p] == kSep);
            continue;
        }
        if (cls == kNonAscii) {
            p = feed_non_ascii(p, end);
            continue;
        }
        const auto *start = p;
        std::uint8_t seen = 0;
        do {
            seen |= cls;
            ++p;
        } while (p < end && ((cls = kAscii.cls[*p]) & kWord) != 0 && cls != kNonAscii);
        const auto n = static_cast<std::size_t>(p - start);
        if (length_ == 0 && p < end && cls == kSep) {
            // The common case: a whole ASCII word inside the piece, given to the
            // sink without a copy unless it has capitals to fold.
            if (!(seen & kLetter)) continue;
            if (!(seen & kUpper)) {
                batch(std::string_view(reinterpret_cast<const char *>(start), n));
                continue;
            }
        }
        has_letter_ |= (seen & kLetter) != 0;
        char *out = grow(n);
        for (const auto *q = start; q < p; ++q) *out++ = kAscii.lower[*q];
        if (length_ == n && p < end && cls == kSep) end_word();
    }
    flush();
}

// Empty before the sink runs: a sink that throws (a cancel) leaves no views
// behind into a piece that is gone.
void Tokenizer::flush() {
    const std::size_t n = batched_;
    batched_ = 0;
#ifdef __SSE2__
    blocks_ = 0;
#endif
    if (n != 0) sink_.words(batch_.data(), n);
}

const unsigned char *Tokenizer::feed_non_ascii(const unsigned char *p, const unsigned char *end) {
    const std::int32_t length = end - p < U8_MAX_LENGTH ? static_cast<std::int32_t>(end - p) : U8_MAX_LENGTH;
    std::int32_t i = 0;
    UChar32 c;
    U8_NEXT(p, i, length, c);
    const CharClass cls = c < 0 ? CharClass::separator : classify(c);
    if (cls == CharClass::separator) {
        if (length_ != 0) end_word();
    } else {
        std::memcpy(grow(static_cast<std::size_t>(i)), p, static_cast<std::size_t>(i));
        non_ascii_ = true;
        has_letter_ |= cls == CharClass::letter;
    }
    return p + i;
}

void Tokenizer::end_word() {
    if (has_letter_) {
        flush();  // the words before this one
        const std::string_view word(word_.data(), length_);
        if (non_ascii_) {
            fold_into(word, folded_, utf16_, utf16_folded_, interrupted_);
            sink_.word(folded_);
        } else {
            sink_.word(word);
        }
    }
    length_ = 0;
    has_letter_ = false;
    non_ascii_ = false;
}

}  // namespace simhash
