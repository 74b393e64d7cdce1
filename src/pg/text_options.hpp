// The options of simhash(text) and simhash_features(text), read from SQL
// arguments: tokens, shingle, weighting, stop_words, html, seed.
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

#include "text_features.hpp"

// Reads the six options starting at argument `first`. A NULL shingle means the
// default for the token kind (words 1, chars 3) and a NULL stop_words means
// none; any other NULL option makes the result NULL, and then this returns
// false. ERROR 22023 naming the option and its value for a bad value.
bool text_options_from_args(FunctionCallInfo fcinfo, int first, simhash::TextOptions *options);
