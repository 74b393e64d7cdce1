#include "stop_word_file.hpp"

namespace simhash {

namespace {
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
}  // namespace

std::vector<std::string> stop_word_file_words(std::string_view contents) {
    std::vector<std::string> words;
    std::size_t line_start = 0;
    while (line_start < contents.size()) {
        std::size_t line_end = contents.find('\n', line_start);
        if (line_end == std::string_view::npos) line_end = contents.size();
        std::size_t word_end = line_start;
        while (word_end < line_end && !is_blank(contents[word_end])) ++word_end;
        if (word_end > line_start) words.emplace_back(contents.substr(line_start, word_end - line_start));
        line_start = line_end + 1;
    }
    return words;
}

}  // namespace simhash
