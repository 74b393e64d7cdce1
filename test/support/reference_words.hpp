// The tokenizer's word rules spelled out one code point at a time, with no fast
// path: the unit tests and the tokenizer fuzzer both check the tokenizer against it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <unicode/utf8.h>

#include "tokenizer.hpp"

inline std::vector<std::string> reference_words(std::string_view text) {
    std::vector<std::string> out;
    std::string word;
    bool letter = false;
    auto end_word = [&] {
        if (letter) out.push_back(simhash::fold_case(word));
        word.clear();
        letter = false;
    };
    const auto *s = reinterpret_cast<const std::uint8_t *>(text.data());
    const auto n = static_cast<std::int32_t>(text.size());
    for (std::int32_t i = 0; i < n;) {
        const std::int32_t start = i;
        UChar32 c;
        U8_NEXT(s, i, n, c);
        const simhash::CharClass cls = c < 0 ? simhash::CharClass::separator : simhash::classify(c);
        if (cls == simhash::CharClass::separator) {
            end_word();
        } else {
            word.append(text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
            letter |= cls == simhash::CharClass::letter;
        }
    }
    end_word();
    return out;
}
