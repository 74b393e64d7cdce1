#include "idf_table.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/varlena.h"
}

#include <type_traits>

#include "cpp_boundary.hpp"
#include "radix_guide.hpp"

namespace {

// Rows fetched from the table per round trip through the cursor.
constexpr long kFetchRows = 10000;

// What identifies the data a query sees: relation, transaction, snapshot, command.
struct IdfKey {
    Oid relid;
    LocalTransactionId lxid;
    TransactionId xmin;
    TransactionId xmax;
    CommandId curcid;

    bool operator==(const IdfKey &o) const {
        return relid == o.relid && lxid == o.lxid && xmin == o.xmin && xmax == o.xmax && curcid == o.curcid;
    }
};

// Lives in fn_mcxt: plain data only, freed with the call site.
struct IdfCache {
    IdfKey key;
    char *name;
    simhash::DfEntry *entries;
    std::size_t count;
    std::uint64_t documents;
    std::uint32_t *guide;
    int bits;
};
static_assert(std::is_trivially_destructible<IdfCache>::value, "kept in fn_extra");

IdfKey current_key(Oid relid) {
    Snapshot snapshot = GetActiveSnapshot();
    IdfKey key{relid, MyProc->lxid, InvalidTransactionId, InvalidTransactionId, GetCurrentCommandId(false)};
    if (snapshot != nullptr) {
        key.xmin = snapshot->xmin;
        key.xmax = snapshot->xmax;
        key.curcid = snapshot->curcid;
    }
    return key;
}

Oid resolve_table(const char *name) {
    List *names = textToQualifiedNameList(cstring_to_text(name));
    Oid relid = RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock, true);
    if (!OidIsValid(relid))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("idf table \"%s\" does not exist", name),
                        errhint("Build one with simhash_df_build().")));
    for (const char *column : {"hash", "df"}) {
        AttrNumber attnum = get_attnum(relid, column);
        if (attnum == InvalidAttrNumber || get_atttype(relid, attnum) != INT8OID)
            ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                            errmsg("idf table \"%s\" must have columns hash bigint and df bigint", name),
                            errdetail("Column \"%s\" is missing or not bigint.", column)));
    }
    return relid;
}

void load(IdfCache *cache, MemoryContext mcxt, Oid relid, const char *name) {
    if (cache->entries != nullptr)
        pfree(cache->entries);
    if (cache->guide != nullptr)
        pfree(cache->guide);
    cache->entries = nullptr;
    cache->guide = nullptr;
    cache->count = 0;
    cache->documents = 0;
    std::size_t capacity = 1024;
    simhash::DfEntry *entries =
        static_cast<simhash::DfEntry *>(MemoryContextAllocHuge(mcxt, capacity * sizeof(simhash::DfEntry)));
    std::size_t count = 0;
    bool have_documents = false;
    std::uint64_t documents = 0;

    const char *query = psprintf("SELECT hash, df FROM %s",
                                 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
                                                            get_rel_name(relid)));
    SPI_connect();
    Portal portal = SPI_cursor_open_with_args(nullptr, query, 0, nullptr, nullptr, nullptr, true, 0);
    for (;;) {
        SPI_cursor_fetch(portal, true, kFetchRows);
        if (SPI_processed == 0)
            break;
        for (uint64 i = 0; i < SPI_processed; ++i) {
            HeapTuple tuple = SPI_tuptable->vals[i];
            bool hash_null, df_null;
            Datum hash = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &hash_null);
            Datum df = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 2, &df_null);
            if (df_null || DatumGetInt64(df) < 0)
                ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                                errmsg("idf table \"%s\" has a %s df", name, df_null ? "NULL" : "negative"),
                                errhint("df counts documents: NULL and negative values are not statistics.")));
            if (hash_null) {
                have_documents = true;
                documents += static_cast<std::uint64_t>(DatumGetInt64(df));
                continue;
            }
            if (count == capacity) {
                capacity *= 2;
                entries = static_cast<simhash::DfEntry *>(repalloc_huge(entries, capacity * sizeof(simhash::DfEntry)));
            }
            entries[count++] = simhash::DfEntry{static_cast<std::uint64_t>(DatumGetInt64(hash)),
                                                static_cast<std::uint64_t>(DatumGetInt64(df))};
        }
        SPI_freetuptable(SPI_tuptable);
        CHECK_FOR_INTERRUPTS();
    }
    SPI_cursor_close(portal);
    SPI_finish();
    if (!have_documents)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("idf table \"%s\" has no document count", name),
                        errhint("The row with hash NULL holds the number of documents; simhash_df_build() writes it.")));

    CPP_CALL("idf", count = simhash::sort_df_entries(entries, count, simhash_interrupt_pending));
    if (count > PG_UINT32_MAX)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("idf table \"%s\" has more than %u features", name, PG_UINT32_MAX)));
    const int bits = simhash::radix_guide_bits(count, simhash::kDfGuideBits);
    std::uint32_t *guide = static_cast<std::uint32_t *>(
        MemoryContextAllocHuge(mcxt, ((std::size_t{1} << bits) + 1) * sizeof(std::uint32_t)));
    simhash::build_radix_guide(count, bits, [&](std::size_t i) { return entries[i].hash; }, guide);
    cache->entries = entries;
    cache->guide = guide;
    cache->bits = bits;
    cache->count = count;
    cache->documents = documents;
}

}  // namespace

simhash::DocumentFrequencies idf_table_for_call(FunctionCallInfo fcinfo, text *name_text) {
    MemoryContext mcxt = fcinfo->flinfo->fn_mcxt;
    IdfCache *cache = static_cast<IdfCache *>(fcinfo->flinfo->fn_extra);
    char *name = text_to_cstring(name_text);
    if (cache == nullptr) {
        cache = static_cast<IdfCache *>(MemoryContextAllocZero(mcxt, sizeof(IdfCache)));
        fcinfo->flinfo->fn_extra = cache;
    }
    const bool same_name = cache->name != nullptr && strcmp(cache->name, name) == 0;
    // Same name within the same snapshot and command: the same table, the same data.
    if (!same_name || !(cache->key == current_key(cache->key.relid))) {
        Oid relid = resolve_table(name);
        const IdfKey key = current_key(relid);
        if (!same_name || !(cache->key == key) || cache->entries == nullptr) {
            if (cache->name != nullptr) pfree(cache->name);
            cache->name = nullptr;
            load(cache, mcxt, relid, name);
            cache->key = key;
            cache->name = MemoryContextStrdup(mcxt, name);
        }
    }
    return simhash::DocumentFrequencies(cache->entries, cache->count, cache->documents, cache->guide, cache->bits);
}
