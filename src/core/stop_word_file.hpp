// The words of a PostgreSQL stop-word file ($SHAREDIR/tsearch_data/<language>.stop):
// one word per line, read the way PostgreSQL reads them, so simhash() drops the
// same words as to_tsvector() with that language's dictionary.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace simhash {

// Of each line, the text before its first blank (space, tab, CR, VT, FF);
// lines that start with a blank or are empty give no word. Bytes are kept as
// they are (the files are UTF-8).
std::vector<std::string> stop_word_file_words(std::string_view contents);

}  // namespace simhash
