// simhash_near_pairs(query, k) and simhash_clusters(query, k): whole-table
// deduplication. The rows come from dedup_read_input(); the search runs in the
// C++ core, or, for inputs larger than work_mem, in dedup_spill.cpp; results go
// to a tuplestore (which spills to disk beyond work_mem).
#include "simhash64.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

#include "cpp_boundary.hpp"
#include "dedup_input.hpp"
#include "dedup_spill.hpp"
#include "hamming.hpp"
#include "near_pairs.hpp"

namespace {

// What the core's callbacks need; plain data, as it crosses into C code.
struct Output {
    DedupInput *input;
    ReturnSetInfo *rsinfo;
    ErrorData *pg_error;  // a PostgreSQL error raised inside a callback
    const simhash::NearPair *pairs;
    std::size_t count;
    std::size_t tables_done;
    std::size_t tables;
};

// Thrown by a callback after a PostgreSQL error, to unwind the core.
struct PostgresErrorRaised {};

void put_pairs(void *arg) {
    Output *out = static_cast<Output *>(arg);
    Datum values[3];
    bool nulls[3] = {false, false, false};
    for (std::size_t i = 0; i < out->count; ++i) {
        values[0] = PointerGetDatum(dedup_key_text(out->input, out->pairs[i].a));
        values[1] = PointerGetDatum(dedup_key_text(out->input, out->pairs[i].b));
        values[2] = Int32GetDatum(out->pairs[i].distance);
        tuplestore_putvalues(out->rsinfo->setResult, out->rsinfo->setDesc, values, nulls);
    }
}

void emit_pairs(void *context, const simhash::NearPair *pairs, std::size_t count) {
    Output *out = static_cast<Output *>(context);
    out->pairs = pairs;
    out->count = count;
    if (!dedup_pg_guarded(put_pairs, out, out->input->context, &out->pg_error)) throw PostgresErrorRaised();
}

void report_table(void *arg) {
    Output *out = static_cast<Output *>(arg);
    ereport(out->input->progress_level,
            (errmsg("%s: table %zu of %zu swept", out->input->caller, out->tables_done, out->tables)));
}

void progress(void *context, std::size_t done, std::size_t tables) {
    Output *out = static_cast<Output *>(context);
    out->tables_done = done;
    out->tables = tables;
    if (!dedup_pg_guarded(report_table, out, out->input->context, &out->pg_error)) throw PostgresErrorRaised();
}

int32 checked_k(const char *caller, int32 k) {
    if (k < 0 || k > simhash::kBits)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: distance %d is out of range", caller, k),
                        errhint("The distance must be between 0 and 64 bits.")));
    return k;
}

void start(FunctionCallInfo fcinfo, const char *caller, DedupInput *in, Output *out) {
    InitMaterializedSRF(fcinfo, 0);
    dedup_read_input(caller, PG_GETARG_TEXT_PP(0), dedup_simhash64_type(fcinfo), in);
    ereport(in->progress_level, (errmsg("%s: searching %zu fingerprints within %d bits", caller, in->rows,
                                        PG_GETARG_INT32(1))));
    *out = Output{in, reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo), nullptr, nullptr, 0, 0, 0};
}

// Raises what went wrong in the core: a PostgreSQL error from a callback as it
// was, anything else through report_cpp_failure().
void finish_failed(const Output &out, const CppFailure &failure, const char *caller) {
    if (out.pg_error) ReThrowError(out.pg_error);
    report_cpp_failure(&failure, caller);
}

}  // namespace

SIMHASH_FUNCTION(simhash_near_pairs) {
    const char *caller = "simhash_near_pairs";
    int32 k = checked_k(caller, PG_GETARG_INT32(1));
    DedupInput in;
    Output out;
    start(fcinfo, caller, &in, &out);
    if (in.spilled) {
        dedup_spilled_near_pairs(&in, k, out.rsinfo);
        MemoryContextDelete(in.context);
        return (Datum)0;
    }
    CppFailure failure;
    bool ok = cpp_guarded(
        [&]() {
            simhash::NearPairsOptions options;
            options.k = k;
            options.interrupted = simhash_interrupt_pending;
            options.context = &out;
            options.emit = emit_pairs;
            options.progress = progress;
            simhash::find_near_pairs(in.fingerprints, in.rows, options);
        },
        &failure);
    if (!ok) finish_failed(out, failure, caller);
    MemoryContextDelete(in.context);
    return (Datum)0;
}

SIMHASH_FUNCTION(simhash_clusters) {
    const char *caller = "simhash_clusters";
    int32 k = checked_k(caller, PG_GETARG_INT32(1));
    DedupInput in;
    Output out;
    start(fcinfo, caller, &in, &out);
    if (in.spilled) {
        dedup_spilled_clusters(&in, k, out.rsinfo);
        MemoryContextDelete(in.context);
        return (Datum)0;
    }
    std::size_t n = in.rows;
    std::size_t bytes = (n ? n : 1) * sizeof(std::uint32_t);
    auto *representative = static_cast<std::uint32_t *>(MemoryContextAllocHuge(in.context, bytes));
    auto *cluster_size = static_cast<std::uint32_t *>(MemoryContextAllocHuge(in.context, bytes));
    CppFailure failure;
    bool ok = cpp_guarded(
        [&]() {
            simhash::NearPairsOptions options;
            options.k = k;
            options.interrupted = simhash_interrupt_pending;
            options.context = &out;
            options.progress = progress;
            simhash::find_clusters(in.fingerprints, n, options, representative, cluster_size);
        },
        &failure);
    if (!ok) finish_failed(out, failure, caller);

    // Rows of clusters with two or more rows, in query order.
    Datum values[4];
    bool nulls[4] = {false, false, false, false};
    for (std::size_t row = 0; row < n; ++row) {
        if (cluster_size[row] < 2) continue;
        std::uint32_t rep = representative[row];
        values[0] = PointerGetDatum(dedup_key_text(&in, row));
        values[1] = PointerGetDatum(dedup_key_text(&in, rep));
        values[2] = Int32GetDatum(static_cast<int32>(cluster_size[row]));
        values[3] = Int32GetDatum(simhash::hamming_distance(in.fingerprints[row], in.fingerprints[rep]));
        tuplestore_putvalues(out.rsinfo->setResult, out.rsinfo->setDesc, values, nulls);
        if ((row & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    MemoryContextDelete(in.context);
    return (Datum)0;
}
