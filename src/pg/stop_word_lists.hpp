// PostgreSQL's stop-word lists ($SHAREDIR/tsearch_data/<language>.stop) for
// simhash(..., stop_words => 'english'), read once per backend.
#pragma once

#include "stop_words.hpp"

// The list for `language`, loaded on first use and kept for the backend's
// life. ERROR 22023 naming the value when the name is not a plain language
// name or no such list is installed.
const simhash::StopWords *stop_word_list(const char *language);
