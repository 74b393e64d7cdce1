// The rows a whole-table deduplication works on: the caller's query is run
// through SPI with the caller's privileges and read through a cursor in
// batches into palloc'd arrays of (key, fingerprint) while they fit in
// work_mem, and into a tuplestore of (fingerprint, key text), which spills to
// disk, once they would not (see docs/dedup.md, "Memory").
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/elog.h"
#include "utils/tuplestore.h"
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
    // In memory until the rows would take more than `budget` bytes (work_mem);
    // then `spilled` holds every row, in query order, as (fingerprint int8,
    // key text) and the arrays above are freed.
    std::size_t budget;
    std::size_t bytes;  // estimated working set of the in-memory search
    MemoryContext key_context;  // the in-memory key copies, dropped on spilling
    Tuplestorestate *spilled;
    MemoryContext row_context;  // per spilled row
    TupleDesc spilled_desc;
    // A uniform sample of the fingerprints (reservoir), for the layout choice
    // when spilled.
    std::uint64_t *sample;
    std::size_t sample_count;
    std::uint64_t sample_state;
};

// Fingerprints sampled for the layout choice of a spilled search.
constexpr std::size_t kDedupSample = 4096;
// Bytes per row of the in-memory search besides the keys (docs/dedup.md).
constexpr std::size_t kDedupBytesPerRow = 56;

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
