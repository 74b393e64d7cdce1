// The rows a whole-table deduplication works on: the caller's query is run
// through SPI with the caller's privileges and read through a cursor in
// batches into palloc'd arrays of (key, fingerprint).
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/elog.h"
}

#include <cstddef>
#include <cstdint>

struct DedupInput {
    MemoryContext context;  // holds everything below
    const char *caller;     // SQL function name, for messages
    std::uint64_t *fingerprints;
    Datum *keys;  // detoasted copies; rows with a NULL fingerprint are skipped
    std::size_t rows;
    std::size_t capacity;
    FmgrInfo key_output;
    text **key_text;  // each key's text form, made when first returned
    int progress_level;
};

// Large inputs report progress at NOTICE, others at DEBUG1.
constexpr std::size_t kDedupProgressRows = 1000000;

// Runs `query` (a read-only SELECT of two columns: any key type, then simhash64
// or bigint) and reads every row. Raises an error for anything else and for a
// NULL key. Everything is allocated in a new child of CurrentMemoryContext.
void dedup_read_input(const char *caller, text *query, Oid simhash64_type, DedupInput *in);

// The key of `row` as text (cached).
text *dedup_key_text(DedupInput *in, std::size_t row);

// The OID of type simhash64 in the schema of the calling function.
Oid dedup_simhash64_type(FunctionCallInfo fcinfo);

// Runs `fn(arg)`, PostgreSQL code that may raise an error, from inside C++: an
// error is caught and kept in *error (copied into `context`) and false is
// returned, so the C++ caller can unwind and the glue re-raise it unchanged
// with ReThrowError once no C++ object is alive.
bool dedup_pg_guarded(void (*fn)(void *), void *arg, MemoryContext context, ErrorData **error);
