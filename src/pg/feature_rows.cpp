// simhash_features(document text, <the options of simhash(text)>): one row
// (feature, hash, weight) per distinct feature, in order of first occurrence:
// exactly what the document votes with, for users asking why two documents
// match. Features are shown in the database encoding; hashes are of their
// UTF-8 bytes, as in simhash(text[]).
#include "simhash64.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
}

#include <new>

#include "cpp_boundary.hpp"
#include "idf_table.hpp"
#include "text_options.hpp"
#include "utf8_text.hpp"

namespace {

// explain_text()'s rows copied into palloc'd memory, so that no C++ container
// is alive while rows are stored (which may raise errors).
struct FlatRows {
    std::size_t count;
    char *bytes;             // all features, back to back
    std::size_t *offsets;    // count + 1 offsets into bytes
    std::uint64_t *hashes;
    double *weights;
};

// palloc that reports failure as std::bad_alloc: called from C++ code, it must
// not longjmp.
void *palloc_or_throw(std::size_t size) {
    void *p = palloc_extended(size == 0 ? 1 : size, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}

void flatten(const std::vector<simhash::FeatureRow> &rows, FlatRows *flat) {
    std::size_t total = 0;
    for (const auto &row : rows) total += row.feature.size();
    flat->count = rows.size();
    flat->bytes = static_cast<char *>(palloc_or_throw(total));
    flat->offsets = static_cast<std::size_t *>(palloc_or_throw(sizeof(std::size_t) * (rows.size() + 1)));
    flat->hashes = static_cast<std::uint64_t *>(palloc_or_throw(sizeof(std::uint64_t) * rows.size()));
    flat->weights = static_cast<double *>(palloc_or_throw(sizeof(double) * rows.size()));
    std::size_t at = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        flat->offsets[i] = at;
        memcpy(flat->bytes + at, rows[i].feature.data(), rows[i].feature.size());
        at += rows[i].feature.size();
        flat->hashes[i] = rows[i].hash;
        flat->weights[i] = simhash::from_fixed_weight(rows[i].weight);
    }
    flat->offsets[rows.size()] = at;
}

// Fills the materialized result with the rows of one document.
Datum feature_rows(FunctionCallInfo fcinfo, const simhash::TextOptions &options) {
    text *document = PG_GETARG_TEXT_PP(0);
    std::string_view utf8 = server_text_as_utf8(VARDATA_ANY(document), VARSIZE_ANY_EXHDR(document));

    FlatRows flat{};
    CPP_CALL("simhash_features",
             flatten(simhash::explain_text(utf8, options, simhash_interrupt_pending), &flat));

    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    for (std::size_t i = 0; i < flat.count; ++i) {
        if (i % 1024 == 0)
            CHECK_FOR_INTERRUPTS();
        const char *feature = flat.bytes + flat.offsets[i];
        std::size_t bytes = flat.offsets[i + 1] - flat.offsets[i];
        // Case folding can make a word of a 1 GB text longer than a text may be.
        if (bytes > MaxAllocSize - VARHDRSZ - 1)
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("simhash_features: a feature of %zu bytes is longer than a text value can be", bytes)));
        int length = static_cast<int>(bytes);
        char *server = pg_any_to_server(feature, length, PG_UTF8);
        text *shown = server == feature ? cstring_to_text_with_len(feature, length) : cstring_to_text(server);
        Datum values[3] = {
            PointerGetDatum(shown),
            Int64GetDatum(static_cast<int64>(flat.hashes[i])),
            Float8GetDatum(flat.weights[i]),
        };
        bool nulls[3] = {false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        // The tuplestore copied the row: keep memory to the features plus one row.
        pfree(shown);
        if (server != feature)
            pfree(server);
    }
    return (Datum) 0;
}

}  // namespace

SIMHASH_FUNCTION(simhash_features_text) {
    InitMaterializedSRF(fcinfo, 0);
    if (PG_ARGISNULL(0))
        return (Datum) 0;
    simhash::TextOptions options;
    if (!text_options_from_args(fcinfo, 1, &options))
        return (Datum) 0;
    return feature_rows(fcinfo, options);
}

// simhash_tfidf_features(document, idf, <options>): the rows simhash_tfidf() votes with.
SIMHASH_FUNCTION(simhash_tfidf_features_text) {
    InitMaterializedSRF(fcinfo, 0);
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
        return (Datum) 0;
    simhash::TextOptions options;
    if (!text_options_from_args(fcinfo, 2, &options))
        return (Datum) 0;
    const simhash::DocumentFrequencies idf = idf_table_for_call(fcinfo, PG_GETARG_TEXT_PP(1));
    options.idf = &idf;
    return feature_rows(fcinfo, options);
}
