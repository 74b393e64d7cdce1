#include "html_strip.hpp"

#include <cstdint>
#include <cstring>

namespace simhash {

namespace {

constexpr std::size_t kPollBytes = 16384;

struct NamedEntity {
    const char *name;
    char32_t code_point;
};

// The common named references; an unknown name stays as written.
constexpr NamedEntity kNamed[] = {
    {"amp", '&'},       {"lt", '<'},         {"gt", '>'},         {"quot", '"'},       {"apos", '\''},
    {"nbsp", 0xA0},     {"shy", 0xAD},       {"copy", 0xA9},      {"reg", 0xAE},       {"trade", 0x2122},
    {"deg", 0xB0},      {"plusmn", 0xB1},    {"times", 0xD7},     {"divide", 0xF7},    {"micro", 0xB5},
    {"middot", 0xB7},   {"para", 0xB6},      {"sect", 0xA7},      {"cent", 0xA2},      {"pound", 0xA3},
    {"yen", 0xA5},      {"euro", 0x20AC},    {"laquo", 0xAB},     {"raquo", 0xBB},     {"lsquo", 0x2018},
    {"rsquo", 0x2019},  {"ldquo", 0x201C},   {"rdquo", 0x201D},   {"ndash", 0x2013},   {"mdash", 0x2014},
    {"hellip", 0x2026}, {"bull", 0x2022},    {"ensp", 0x2002},    {"emsp", 0x2003},    {"thinsp", 0x2009},
    {"iexcl", 0xA1},    {"iquest", 0xBF},    {"Agrave", 0xC0},    {"Aacute", 0xC1},    {"Acirc", 0xC2},
    {"Atilde", 0xC3},   {"Auml", 0xC4},      {"Aring", 0xC5},     {"AElig", 0xC6},     {"Ccedil", 0xC7},
    {"Egrave", 0xC8},   {"Eacute", 0xC9},    {"Ecirc", 0xCA},     {"Euml", 0xCB},      {"Igrave", 0xCC},
    {"Iacute", 0xCD},   {"Icirc", 0xCE},     {"Iuml", 0xCF},      {"Ntilde", 0xD1},    {"Ograve", 0xD2},
    {"Oacute", 0xD3},   {"Ocirc", 0xD4},     {"Otilde", 0xD5},    {"Ouml", 0xD6},      {"Oslash", 0xD8},
    {"Ugrave", 0xD9},   {"Uacute", 0xDA},    {"Ucirc", 0xDB},     {"Uuml", 0xDC},      {"Yacute", 0xDD},
    {"szlig", 0xDF},    {"agrave", 0xE0},    {"aacute", 0xE1},    {"acirc", 0xE2},     {"atilde", 0xE3},
    {"auml", 0xE4},     {"aring", 0xE5},     {"aelig", 0xE6},     {"ccedil", 0xE7},    {"egrave", 0xE8},
    {"eacute", 0xE9},   {"ecirc", 0xEA},     {"euml", 0xEB},      {"igrave", 0xEC},    {"iacute", 0xED},
    {"icirc", 0xEE},    {"iuml", 0xEF},      {"ntilde", 0xF1},    {"ograve", 0xF2},    {"oacute", 0xF3},
    {"ocirc", 0xF4},    {"otilde", 0xF5},    {"ouml", 0xF6},      {"oslash", 0xF8},    {"ugrave", 0xF9},
    {"uacute", 0xFA},   {"ucirc", 0xFB},     {"uuml", 0xFC},      {"yacute", 0xFD},    {"yuml", 0xFF},
    {"OElig", 0x152},   {"oelig", 0x153},    {"Scaron", 0x160},   {"scaron", 0x161},   {"Yuml", 0x178},
};
constexpr std::size_t kMaxEntityName = 6;

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

int hex_value(char c) {
    if (is_digit(c)) return c - '0';
    c = lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

std::size_t encode_utf8(char32_t c, char out[4]) {
    if (c < 0x80) {
        out[0] = static_cast<char>(c);
        return 1;
    }
    if (c < 0x800) {
        out[0] = static_cast<char>(0xC0 | (c >> 6));
        out[1] = static_cast<char>(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (c >> 12));
        out[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (c >> 18));
    out[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (c & 0x3F));
    return 4;
}

bool starts_with_ci(std::string_view s, std::size_t at, const char *lower_word) {
    const std::size_t n = std::strlen(lower_word);
    if (s.size() - at < n) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (lower(s[at + i]) != lower_word[i]) return false;
    return true;
}

class Stripper {
public:
    Stripper(std::string_view html, HtmlSink &sink, InterruptCheck interrupted)
        : s_(html), sink_(sink), interrupted_(interrupted) {}

    void run() {
        std::size_t text_start = 0;
        while (pos_ < s_.size()) {
            poll();
            const char c = s_[pos_];
            if (c != '<' && c != '&') {
                // Long text goes out in pieces, so the tokenizer's work is polled
                // too; a piece never ends before a continuation byte.
                if (pos_ - text_start >= kPollBytes && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
                    flush(text_start);
                    text_start = pos_;
                }
                ++pos_;
                continue;
            }
            flush(text_start);
            if (c == '&')
                entity();
            else
                markup();
            text_start = pos_;
        }
        flush(text_start);
    }

private:
    void poll() {
        if (pos_ >= next_poll_) {
            next_poll_ = pos_ + kPollBytes;
            if (interrupted_ && interrupted_()) throw Error(Error::Kind::cancelled, "canceling HTML stripping");
        }
    }

    void flush(std::size_t text_start) {
        if (pos_ > text_start) sink_.text(s_.substr(text_start, pos_ - text_start));
    }

    // Advances past the next `what`, or to the end of the input when it is missing.
    void skip_past(const char *what) {
        const std::size_t at = s_.find(what, pos_);
        pos_ = at == std::string_view::npos ? s_.size() : at + std::strlen(what);
    }

    void emit_code_point(char32_t c) {
        // As HTML does: NUL, surrogates and values beyond Unicode become U+FFFD.
        if (c == 0 || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
        char buf[4];
        sink_.text(std::string_view(buf, encode_utf8(c, buf)));
    }

    // At '&': a numeric reference (';' optional) or a known name followed by ';'.
    // Anything else is the literal '&'.
    void entity() {
        const std::size_t start = pos_;
        std::size_t i = start + 1;
        if (i < s_.size() && s_[i] == '#') {
            ++i;
            const bool hex = i < s_.size() && (s_[i] == 'x' || s_[i] == 'X');
            if (hex) ++i;
            const std::size_t digits_start = i;
            char32_t value = 0;
            for (; i < s_.size(); ++i) {
                const int d = hex ? hex_value(s_[i]) : (is_digit(s_[i]) ? s_[i] - '0' : -1);
                if (d < 0) break;
                value = value > 0x10FFFF ? value : value * (hex ? 16 : 10) + static_cast<char32_t>(d);
            }
            if (i > digits_start) {
                if (i < s_.size() && s_[i] == ';') ++i;
                pos_ = i;
                emit_code_point(value);
                return;
            }
        } else {
            while (i < s_.size() && i - start - 1 < kMaxEntityName && (is_alpha(s_[i]) || is_digit(s_[i]))) ++i;
            if (i < s_.size() && s_[i] == ';') {
                const std::string_view name = s_.substr(start + 1, i - start - 1);
                for (const auto &e : kNamed) {
                    if (name == e.name) {
                        pos_ = i + 1;
                        emit_code_point(e.code_point);
                        return;
                    }
                }
            }
        }
        pos_ = start + 1;
        sink_.text(s_.substr(start, 1));
    }

    // At '<': a comment, a declaration, a tag, or a literal '<'.
    void markup() {
        const std::size_t start = pos_;
        const std::size_t next = start + 1;
        if (next >= s_.size()) {  // a lone '<' at the end is text
            pos_ = s_.size();
            sink_.text(s_.substr(start, 1));
            return;
        }
        const char c = s_[next];
        if (s_.compare(next, 3, "!--") == 0) {
            pos_ = next + 3;
            skip_past("-->");
        } else if (c == '!' || c == '?') {
            pos_ = next;
            skip_past(">");
        } else if (is_alpha(c) || (c == '/' && next + 1 < s_.size() && is_alpha(s_[next + 1]))) {
            const bool closing = c == '/';
            pos_ = closing ? next + 1 : next;
            const std::size_t name_start = pos_;
            while (pos_ < s_.size() && (is_alpha(s_[pos_]) || is_digit(s_[pos_]))) ++pos_;
            const std::size_t name_length = pos_ - name_start;
            const bool script = name_length == 6 && starts_with_ci(s_, name_start, "script");
            const bool style = name_length == 5 && starts_with_ci(s_, name_start, "style");
            skip_tag_rest();
            if (!closing && (script || style)) skip_raw_text(script ? "</script" : "</style");
        } else {
            pos_ = next;
            sink_.text(s_.substr(start, 1));
            return;
        }
        sink_.separator();
    }

    // Past the '>' ending a tag; a '>' inside a quoted attribute value does not end it.
    void skip_tag_rest() {
        while (pos_ < s_.size()) {
            const char c = s_[pos_++];
            if (c == '>') return;
            if (c != '=') continue;
            while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'')) {
                const std::size_t close = s_.find(s_[pos_], pos_ + 1);
                pos_ = close == std::string_view::npos ? s_.size() : close + 1;
            }
        }
    }

    // The contents of <script> or <style> up to its end tag, which is skipped too.
    void skip_raw_text(const char *end_tag) {
        const std::size_t n = std::strlen(end_tag);
        while (pos_ < s_.size()) {
            poll();
            const std::size_t lt = s_.find('<', pos_);
            if (lt == std::string_view::npos) break;
            pos_ = lt + 1;
            if (starts_with_ci(s_, lt, end_tag) &&
                (lt + n == s_.size() || is_space(s_[lt + n]) || s_[lt + n] == '>' || s_[lt + n] == '/')) {
                pos_ = lt + n;
                skip_tag_rest();
                return;
            }
        }
        pos_ = s_.size();
    }

    std::string_view s_;
    HtmlSink &sink_;
    InterruptCheck interrupted_;
    std::size_t pos_ = 0;
    std::size_t next_poll_ = 0;
};

}  // namespace

void strip_html(std::string_view html, HtmlSink &sink, InterruptCheck interrupted) {
    Stripper(html, sink, interrupted).run();
}

}  // namespace simhash
