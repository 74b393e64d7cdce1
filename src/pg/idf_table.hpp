// Document-frequency statistics read from a table for the idf option of
// simhash_tfidf() and simhash_tfidf_features(): loaded once per query and call
// site, kept in the call site's memory (fn_mcxt via fn_extra).
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

#include "feature_weights.hpp"

// The statistics of the table named `name` (a possibly qualified name, resolved
// on the search_path), for the current query. The table needs columns hash and
// df of type bigint; the row with hash NULL holds the document count. Reloads
// when the name, the transaction, the snapshot or the command changes, so a
// query sees the statistics of its snapshot and no per-row reading. Errors name
// the option idf: no such table (42P01), a wrong shape (42804), a NULL or
// negative df or no document count row (22023).
simhash::DocumentFrequencies idf_table_for_call(FunctionCallInfo fcinfo, text *name);
