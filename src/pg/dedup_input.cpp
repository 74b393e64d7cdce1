#include "dedup_input.hpp"

#include <algorithm>

extern "C" {
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/syscache.h"
#include "access/detoast.h"
#include "access/tupdesc.h"
}

#include "near_pairs.hpp"

// Rows fetched at a time, fewer when they are wide: a batch holds about
// work_mem of rows (150 one-megabyte keys took 224 MB at work_mem = 64kB).
static constexpr long kFetchRows = 10000;

Oid dedup_simhash64_type(FunctionCallInfo fcinfo) {
    Oid schema = get_func_namespace(fcinfo->flinfo->fn_oid);
    Oid type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("simhash64"), ObjectIdGetDatum(schema));
    if (!OidIsValid(type)) elog(ERROR, "type simhash64 not found in the schema of the simhash extension");
    return type;
}

// Whether the query, one of its subqueries or CTEs (a view's included) locks rows.
static bool locks_rows(Node *node, void *context) {
    if (node == nullptr) return false;
    // (PostgreSQL 15 declares the walker without its parameters; void (*)()
    // converts to and from any function pointer without a warning.)
    auto walker = reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(locks_rows));
    if (IsA(node, Query)) {
        Query *q = castNode(Query, node);
        return q->rowMarks != NIL || query_tree_walker(q, walker, context, 0);
    }
    return expression_tree_walker(node, walker, context);
}

// The query must be one plain SELECT that changes nothing: no data-modifying
// WITH, no FOR UPDATE/SHARE anywhere in it, no SELECT INTO.
static void check_query(const char *caller, SPIPlanPtr plan, Oid simhash64_type) {
    List *sources = SPI_plan_get_plan_sources(plan);
    bool read_only_select = list_length(sources) == 1;
    CachedPlanSource *source = read_only_select ? static_cast<CachedPlanSource *>(linitial(sources)) : nullptr;
    if (source && source->commandTag != CMDTAG_SELECT) read_only_select = false;
    if (source) {
        ListCell *lc;
        foreach (lc, source->query_list) {
            Query *q = lfirst_node(Query, lc);
            if (q->commandType != CMD_SELECT || q->hasModifyingCTE || q->utilityStmt ||
                locks_rows(reinterpret_cast<Node *>(q), nullptr))
                read_only_select = false;
        }
    }
    if (!read_only_select)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("%s: the query must be a single read-only SELECT", caller),
                        errhint("Pass a query such as 'SELECT id, fingerprint FROM documents'.")));
    TupleDesc desc = source->resultDesc;
    if (!desc || desc->natts != 2)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("%s: the query must return exactly two columns, the key and the fingerprint", caller),
                        errdetail("It returns %d columns.", desc ? desc->natts : 0)));
    Oid fp_type = getBaseType(TupleDescAttr(desc, 1)->atttypid);
    if (fp_type != simhash64_type && fp_type != INT8OID)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("%s: the second column of the query must be of type simhash64 or bigint", caller),
                        errdetail("Column \"%s\" is of type %s.", NameStr(TupleDescAttr(desc, 1)->attname),
                                  format_type_be(TupleDescAttr(desc, 1)->atttypid))));
}

// Reservoir sampling (Vitter's algorithm R) with a fixed-seed xorshift, so a
// spilled search chooses the same layout every time on the same input.
static void sample_row(DedupInput *in, std::uint64_t fp) {
    if (in->sample_count < kDedupSample) {
        in->sample[in->sample_count++] = fp;
        return;
    }
    std::uint64_t x = in->sample_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    in->sample_state = x;
    std::uint64_t slot = x % (in->rows + 1);
    if (slot < kDedupSample) in->sample[slot] = fp;
}

static void spill_row(DedupInput *in, std::uint64_t fp, text *key) {
    Datum values[2] = {Int64GetDatum(static_cast<int64>(fp)), PointerGetDatum(key)};
    bool nulls[2] = {false, false};
    sample_row(in, fp);
    tuplestore_putvalues(in->spilled, in->spilled_desc, values, nulls);
}

// Spills one row, its key in text form; what the output function allocates is
// freed with the per-row context.
static void spill_key(DedupInput *in, std::uint64_t fp, Datum key) {
    MemoryContext old = MemoryContextSwitchTo(in->row_context);
    text *t = cstring_to_text(OutputFunctionCall(&in->key_output, key));
    MemoryContextSwitchTo(old);
    spill_row(in, fp, t);
    MemoryContextReset(in->row_context);
    ++in->rows;
}

// The rows no longer fit in work_mem: move them to a tuplestore.
static void start_spilling(DedupInput *in) {
    ereport(in->progress_level, (errmsg("%s: the rows exceed work_mem (%d kB), searching on disk", in->caller, work_mem)));
    MemoryContext old = MemoryContextSwitchTo(in->context);
    in->spilled_desc = CreateTemplateTupleDesc(2);
    TupleDescInitEntry(in->spilled_desc, 1, "fingerprint", INT8OID, -1, 0);
    TupleDescInitEntry(in->spilled_desc, 2, "key", TEXTOID, -1, 0);
    in->spilled = tuplestore_begin_heap(false, false, work_mem);
    in->sample = static_cast<std::uint64_t *>(palloc(kDedupSample * sizeof(std::uint64_t)));
    MemoryContextSwitchTo(old);
    in->row_context = AllocSetContextCreate(in->context, "simhash deduplication row", ALLOCSET_SMALL_SIZES);
    std::size_t rows = in->rows;
    in->rows = 0;
    in->sample_count = 0;
    in->sample_state = 0x9E3779B97F4A7C15ull;
    for (std::size_t i = 0; i < rows; ++i) {
        spill_key(in, in->fingerprints[i], in->keys[i]);
        if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    MemoryContextDelete(in->key_context);
    in->key_context = nullptr;
    pfree(in->fingerprints);
    pfree(in->keys);
    in->fingerprints = nullptr;
    in->keys = nullptr;
    in->capacity = 0;
}

static void append_row(DedupInput *in, Datum key, std::uint64_t fp, int16 key_len, bool key_byval) {
    if (in->rows >= simhash::kMaxNearPairRows || in->rows >= static_cast<std::size_t>(PG_INT32_MAX))
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("%s: the query returns more than %d rows", in->caller, PG_INT32_MAX)));
    if (!in->spilled) {
        in->bytes += kDedupBytesPerRow + (key_byval        ? 0
                                          : key_len == -1 ? toast_raw_datum_size(key)
                                                          : datumGetSize(key, false, key_len));
        if (in->bytes > in->budget) start_spilling(in);
    }
    if (in->spilled) {
        spill_key(in, fp, key);
        return;
    }
    if (in->rows == in->capacity) {
        std::size_t grown = in->capacity * 2;
        in->fingerprints = static_cast<std::uint64_t *>(repalloc_huge(in->fingerprints, grown * sizeof(std::uint64_t)));
        in->keys = static_cast<Datum *>(repalloc_huge(in->keys, grown * sizeof(Datum)));
        in->capacity = grown;
    }
    MemoryContext old = MemoryContextSwitchTo(in->key_context);
    if (key_len == -1)
        key = PointerGetDatum(PG_DETOAST_DATUM_COPY(key));
    else if (!key_byval)
        key = datumCopy(key, false, key_len);
    MemoryContextSwitchTo(old);
    in->fingerprints[in->rows] = fp;
    in->keys[in->rows] = key;
    ++in->rows;
}

void dedup_read_input(const char *caller, text *query, Oid simhash64_type, DedupInput *in) {
    in->context = AllocSetContextCreate(CurrentMemoryContext, "simhash deduplication", ALLOCSET_DEFAULT_SIZES);
    in->caller = caller;
    in->rows = 0;
    in->capacity = 1024;
    in->fingerprints = static_cast<std::uint64_t *>(MemoryContextAlloc(in->context, in->capacity * sizeof(std::uint64_t)));
    in->keys = static_cast<Datum *>(MemoryContextAlloc(in->context, in->capacity * sizeof(Datum)));
    in->key_text = nullptr;
    in->progress_level = DEBUG1;
    in->budget = static_cast<std::size_t>(work_mem) * 1024;
    in->bytes = 0;
    in->key_context = AllocSetContextCreate(in->context, "simhash deduplication keys", ALLOCSET_DEFAULT_SIZES);
    in->spilled = nullptr;
    in->spilled_desc = nullptr;
    in->sample = nullptr;
    in->sample_count = 0;
    in->sample_state = 0;

    char *sql = text_to_cstring(query);
    if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "%s: SPI_connect failed", caller);
    SPIPlanPtr plan = SPI_prepare(sql, 0, nullptr);
    if (!plan)
        elog(ERROR, "%s: could not prepare the query: %s", caller, SPI_result_code_string(SPI_result));
    check_query(caller, plan, simhash64_type);
    Portal portal = SPI_cursor_open(nullptr, plan, nullptr, nullptr, true);

    Oid key_type = TupleDescAttr(portal->tupDesc, 0)->atttypid;
    int16 key_len;
    bool key_byval;
    get_typlenbyval(key_type, &key_len, &key_byval);
    Oid output_fn;
    bool varlena;
    getTypeOutputInfo(key_type, &output_fn, &varlena);
    fmgr_info_cxt(output_fn, &in->key_output, in->context);

    std::size_t next_report = kDedupProgressRows;
    long fetch = 1;  // the first row tells how wide they are
    for (;;) {
        SPI_cursor_fetch(portal, true, fetch);
        if (SPI_processed == 0) break;
        TupleDesc desc = SPI_tuptable->tupdesc;
        std::size_t batch_bytes = 0;
        for (uint64 i = 0; i < SPI_processed; ++i) batch_bytes += SPI_tuptable->vals[i]->t_len;
        fetch = static_cast<long>(std::clamp<std::size_t>(in->budget / std::max<std::size_t>(1, batch_bytes / SPI_processed),
                                                          1, kFetchRows));
        for (uint64 i = 0; i < SPI_processed; ++i) {
            bool key_null, fp_null;
            Datum key = SPI_getbinval(SPI_tuptable->vals[i], desc, 1, &key_null);
            Datum fp = SPI_getbinval(SPI_tuptable->vals[i], desc, 2, &fp_null);
            if (fp_null) continue;
            if (key_null)
                ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                                errmsg("%s: the query returned a NULL key", caller),
                                errdetail("The row with fingerprint %016llx has no key.",
                                          static_cast<unsigned long long>(DatumGetInt64(fp))),
                                errhint("Every row needs a key that names it; rows with a NULL fingerprint are skipped.")));
            append_row(in, key, static_cast<std::uint64_t>(DatumGetInt64(fp)), key_len, key_byval);
        }
        SPI_freetuptable(SPI_tuptable);
        CHECK_FOR_INTERRUPTS();
        if (in->rows >= next_report) {
            in->progress_level = NOTICE;
            ereport(NOTICE, (errmsg("%s: %zu rows read", caller, in->rows)));
            next_report += kDedupProgressRows;
        }
    }
    SPI_cursor_close(portal);
    SPI_finish();
    pfree(sql);
}

text *dedup_key_text(DedupInput *in, std::size_t row) {
    if (!in->key_text)
        in->key_text = static_cast<text **>(MemoryContextAllocExtended(in->context, in->rows * sizeof(text *), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO));
    if (!in->key_text[row]) {
        MemoryContext old = MemoryContextSwitchTo(in->context);
        char *s = OutputFunctionCall(&in->key_output, in->keys[row]);
        in->key_text[row] = cstring_to_text(s);
        pfree(s);
        MemoryContextSwitchTo(old);
    }
    return in->key_text[row];
}

bool dedup_pg_guarded(void (*fn)(void *), void *arg, MemoryContext context, ErrorData **error) {
    MemoryContext old = CurrentMemoryContext;
    volatile bool ok = true;
    PG_TRY();
    {
        fn(arg);
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(context);
        *error = CopyErrorData();
        FlushErrorState();
        ok = false;
    }
    PG_END_TRY();
    MemoryContextSwitchTo(old);
    return ok;
}
