#include "stop_words.hpp"

#include "tokenizer.hpp"

namespace simhash {

StopWords::StopWords(const std::vector<std::string> &words) {
    for (const auto &w : words) words_.insert(fold_case(w));
}

bool StopWords::contains(std::string_view folded_word) const {
    // C++17's unordered_set has no heterogeneous lookup; stop words are short.
    return words_.count(std::string(folded_word)) != 0;
}

}  // namespace simhash
