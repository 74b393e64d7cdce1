// A stop-word list: words dropped before shingling. The glue fills it from
// PostgreSQL's own lists ($SHAREDIR/tsearch_data/<language>.stop).
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace simhash {

class StopWords {
public:
    // Words are case-folded the way tokens are before they are stored.
    explicit StopWords(const std::vector<std::string> &words);
    bool contains(std::string_view folded_word) const;
    std::size_t size() const { return words_.size(); }

private:
    std::unordered_set<std::string> words_;
};

}  // namespace simhash
