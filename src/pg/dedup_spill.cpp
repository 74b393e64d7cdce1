#include "dedup_spill.hpp"

extern "C" {
#include "access/tupdesc.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
}

#include "block_layout.hpp"
#include "cpp_boundary.hpp"
#include "hamming.hpp"
#include "near_pairs.hpp"
#include "simhash64.hpp"

namespace {

// Everything the search and its callbacks share: plain data, as it crosses
// into C code and survives errors.
struct Spill {
    DedupInput *in;
    int k;
    simhash::BlockLayout *layout;  // heap, freed by a reset callback of in->context
    std::size_t tables;
    // The run being collected; grows to the largest run.
    simhash::RunEntry *run;
    std::size_t run_count;
    std::size_t run_capacity;
    // Where pairs go: a sort by row (near pairs) or a union-find (clusters).
    Tuplesortstate *pairs;
    TupleTableSlot *pair_slot;
    std::uint32_t *parent;
    const simhash::NearPair *batch;
    std::size_t batch_count;
    ErrorData *pg_error;
};

struct PostgresErrorRaised {};

void delete_layout(void *arg) {
    delete static_cast<simhash::BlockLayout *>(arg);
}

TupleDesc make_desc(int columns, const Oid *types) {
    TupleDesc desc = CreateTemplateTupleDesc(columns);
    for (int i = 0; i < columns; ++i) TupleDescInitEntry(desc, static_cast<AttrNumber>(i + 1), nullptr, types[i], -1, 0);
    return desc;
}

// A sort of tuples of `desc` on its first `keys` columns (int8, ascending).
Tuplesortstate *sort_on(TupleDesc desc, int keys) {
    AttrNumber cols[2] = {1, 2};
    Oid ops[2] = {Int8LessOperator, Int8LessOperator};
    Oid collations[2] = {InvalidOid, InvalidOid};
    bool nulls_first[2] = {false, false};
    return tuplesort_begin_heap(desc, keys, cols, ops, collations, nulls_first, work_mem, nullptr, TUPLESORT_NONE);
}

void put_sorted(Tuplesortstate *sort, TupleTableSlot *slot, const Datum *values) {
    ExecClearTuple(slot);
    for (int i = 0; i < slot->tts_tupleDescriptor->natts; ++i) {
        slot->tts_values[i] = values[i];
        slot->tts_isnull[i] = false;
    }
    ExecStoreVirtualTuple(slot);
    tuplesort_puttupleslot(sort, slot);
}

void put_pair_batch(void *arg) {
    Spill *s = static_cast<Spill *>(arg);
    for (std::size_t i = 0; i < s->batch_count; ++i) {
        Datum v[3] = {Int64GetDatum(s->batch[i].a), Int64GetDatum(s->batch[i].b), Int64GetDatum(s->batch[i].distance)};
        put_sorted(s->pairs, s->pair_slot, v);
    }
}

void emit_to_sort(void *context, const simhash::NearPair *pairs, std::size_t count) {
    Spill *s = static_cast<Spill *>(context);
    s->batch = pairs;
    s->batch_count = count;
    if (!dedup_pg_guarded(put_pair_batch, s, s->in->context, &s->pg_error)) throw PostgresErrorRaised();
}

// Union-find whose root is the lowest row: the cluster's representative.
std::uint32_t find_root(std::uint32_t *parent, std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

void emit_to_union_find(void *context, const simhash::NearPair *pairs, std::size_t count) {
    std::uint32_t *parent = static_cast<Spill *>(context)->parent;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t a = find_root(parent, pairs[i].a), b = find_root(parent, pairs[i].b);
        if (a < b)
            parent[b] = a;
        else if (b < a)
            parent[a] = b;
    }
}

[[noreturn]] void raise_failure(Spill *s, const CppFailure &failure) {
    if (s->pg_error) ReThrowError(s->pg_error);
    report_cpp_failure(&failure, s->in->caller);
    pg_unreachable();
}

void choose_layout(Spill *s) {
    s->layout = nullptr;
    s->tables = 1;
    if (s->k == 0) return;
    CppFailure failure;
    DedupInput *in = s->in;
    int k = s->k;
    // The callback is registered first, so no error can come between the
    // allocation and the registration.
    MemoryContextCallback *cb =
        static_cast<MemoryContextCallback *>(MemoryContextAllocZero(in->context, sizeof(MemoryContextCallback)));
    cb->func = delete_layout;
    MemoryContextRegisterResetCallback(in->context, cb);
    simhash::BlockLayout *layout = nullptr;
    bool ok = cpp_guarded(
        [&]() {
            int blocks = simhash::BlockLayout::choose_blocks_sampled(k, in->sample, in->sample_count, in->rows, true);
            layout = new simhash::BlockLayout(k, blocks);
            cb->arg = layout;
        },
        &failure);
    if (!ok) raise_failure(s, failure);
    s->layout = layout;
    s->tables = layout->tables();
}

// Sweeps the collected run (two rows or more) through the core.
void sweep_run(Spill *s, std::size_t t, void (*emit)(void *, const simhash::NearPair *, std::size_t)) {
    if (s->run_count < 2) return;
    CppFailure failure;
    bool ok = cpp_guarded(
        [&]() {
            simhash::NearPairsOptions options;
            options.k = s->k;
            options.interrupted = simhash_interrupt_pending;
            options.context = s;
            options.emit = emit;
            options.spanning = s->parent != nullptr;  // a union-find needs only connectivity
            simhash::sweep_near_pair_run(s->layout, t, s->run, s->run_count, options);
        },
        &failure);
    if (!ok) raise_failure(s, failure);
}

void add_to_run(Spill *s, std::uint64_t value, std::uint32_t row) {
    if (s->run_count == s->run_capacity) {
        s->run_capacity *= 2;
        s->run = static_cast<simhash::RunEntry *>(
            repalloc_huge(s->run, s->run_capacity * sizeof(simhash::RunEntry)));
    }
    s->run[s->run_count++] = simhash::RunEntry{value, row};
}

// Every table: sort (permuted fingerprint, row) externally, then sweep each run
// of equal prefixes. Values are stored with the top bit flipped, so int8 order
// is unsigned order.
void search(Spill *s, void (*emit)(void *, const simhash::NearPair *, std::size_t)) {
    DedupInput *in = s->in;
    const Oid types[2] = {INT8OID, INT8OID};
    TupleDesc desc = make_desc(2, types);
    TupleTableSlot *in_slot = MakeSingleTupleTableSlot(in->spilled_desc, &TTSOpsMinimalTuple);
    TupleTableSlot *put_slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
    TupleTableSlot *get_slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
    constexpr std::uint64_t kFlip = std::uint64_t{1} << 63;
    s->run_capacity = 1024;
    s->run = static_cast<simhash::RunEntry *>(palloc(s->run_capacity * sizeof(simhash::RunEntry)));
    for (std::size_t t = 0; t < s->tables; ++t) {
        const int bits = s->layout ? s->layout->prefix_bits(t) : 64;
        const std::uint64_t mask = bits == 0 ? 0 : ~std::uint64_t{0} << (64 - bits);
        Tuplesortstate *sort = sort_on(desc, 1);
        tuplestore_rescan(in->spilled);
        for (std::uint32_t row = 0; tuplestore_gettupleslot(in->spilled, true, false, in_slot); ++row) {
            bool isnull;
            auto fp = static_cast<std::uint64_t>(DatumGetInt64(slot_getattr(in_slot, 1, &isnull)));
            std::uint64_t v = s->layout ? s->layout->permute(t, fp) : fp;
            Datum values[2] = {Int64GetDatum(static_cast<int64>(v ^ kFlip)), Int64GetDatum(row)};
            put_sorted(sort, put_slot, values);
            if ((row & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        }
        tuplesort_performsort(sort);
        s->run_count = 0;
        std::size_t seen = 0;
        while (tuplesort_gettupleslot(sort, true, false, get_slot, nullptr)) {
            bool isnull;
            std::uint64_t v = static_cast<std::uint64_t>(DatumGetInt64(slot_getattr(get_slot, 1, &isnull))) ^ kFlip;
            auto row = static_cast<std::uint32_t>(DatumGetInt64(slot_getattr(get_slot, 2, &isnull)));
            if (s->run_count > 0 && ((v ^ s->run[0].value) & mask) != 0) {
                sweep_run(s, t, emit);
                s->run_count = 0;
            }
            add_to_run(s, v, row);
            if ((++seen & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
        }
        sweep_run(s, t, emit);
        tuplesort_end(sort);
        ereport(in->progress_level, (errmsg("%s: table %zu of %zu swept", in->caller, t + 1, s->tables)));
    }
    pfree(s->run);
    s->run = nullptr;
    ExecDropSingleTupleTableSlot(in_slot);
    ExecDropSingleTupleTableSlot(put_slot);
    ExecDropSingleTupleTableSlot(get_slot);
}

// Reads the spilled rows up to `row` (rows are numbered in order); returns its slot.
TupleTableSlot *advance_to(DedupInput *in, TupleTableSlot *slot, int64 *current, int64 row) {
    while (*current < row) {
        if (!tuplestore_gettupleslot(in->spilled, true, false, slot))
            elog(ERROR, "%s: row %lld missing from the spilled rows", in->caller, static_cast<long long>(row));
        if ((++*current & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    return slot;
}

void init_spill(Spill *s, DedupInput *in, int k) {
    *s = Spill{};
    s->in = in;
    s->k = k;
    choose_layout(s);
    ereport(in->progress_level, (errmsg("%s: searching %zu spilled fingerprints within %d bits in %zu tables",
                                        in->caller, in->rows, k, s->tables)));
}

void end_spill(DedupInput *in) {
    tuplestore_end(in->spilled);
    in->spilled = nullptr;
}

}  // namespace

void dedup_spilled_near_pairs(DedupInput *in, int k, ReturnSetInfo *rsinfo) {
    MemoryContext old = MemoryContextSwitchTo(in->context);
    Spill s;
    init_spill(&s, in, k);
    // Pairs (a, b, distance), sorted by a.
    const Oid types[3] = {INT8OID, INT8OID, INT8OID};
    TupleDesc pair_desc = make_desc(3, types);
    s.pairs = sort_on(pair_desc, 1);
    s.pair_slot = MakeSingleTupleTableSlot(pair_desc, &TTSOpsVirtual);
    search(&s, emit_to_sort);
    tuplesort_performsort(s.pairs);

    // First merge: (b, key_a, distance), sorted by b.
    const Oid by_b_types[3] = {INT8OID, TEXTOID, INT8OID};
    TupleDesc by_b_desc = make_desc(3, by_b_types);
    Tuplesortstate *by_b = sort_on(by_b_desc, 1);
    TupleTableSlot *by_b_put = MakeSingleTupleTableSlot(by_b_desc, &TTSOpsVirtual);
    TupleTableSlot *pair_get = MakeSingleTupleTableSlot(pair_desc, &TTSOpsMinimalTuple);
    TupleTableSlot *row_slot = MakeSingleTupleTableSlot(in->spilled_desc, &TTSOpsMinimalTuple);
    tuplestore_rescan(in->spilled);
    int64 current = -1;
    std::size_t done = 0;
    while (tuplesort_gettupleslot(s.pairs, true, false, pair_get, nullptr)) {
        bool isnull;
        int64 a = DatumGetInt64(slot_getattr(pair_get, 1, &isnull));
        advance_to(in, row_slot, &current, a);
        Datum v[3] = {slot_getattr(pair_get, 2, &isnull), slot_getattr(row_slot, 2, &isnull),
                      slot_getattr(pair_get, 3, &isnull)};
        put_sorted(by_b, by_b_put, v);
        if ((++done & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    tuplesort_end(s.pairs);
    tuplesort_performsort(by_b);

    // Second merge: (key_a, key_b, distance) out.
    TupleTableSlot *by_b_get = MakeSingleTupleTableSlot(by_b_desc, &TTSOpsMinimalTuple);
    tuplestore_rescan(in->spilled);
    current = -1;
    while (tuplesort_gettupleslot(by_b, true, false, by_b_get, nullptr)) {
        bool isnull;
        int64 b = DatumGetInt64(slot_getattr(by_b_get, 1, &isnull));
        advance_to(in, row_slot, &current, b);
        Datum values[3] = {slot_getattr(by_b_get, 2, &isnull), slot_getattr(row_slot, 2, &isnull),
                           Int32GetDatum(static_cast<int32>(DatumGetInt64(slot_getattr(by_b_get, 3, &isnull))))};
        bool nulls[3] = {false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        if ((++done & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    tuplesort_end(by_b);
    end_spill(in);
    MemoryContextSwitchTo(old);
}

void dedup_spilled_clusters(DedupInput *in, int k, ReturnSetInfo *rsinfo) {
    MemoryContext old = MemoryContextSwitchTo(in->context);
    Spill s;
    init_spill(&s, in, k);
    const std::size_t n = in->rows;
    // 4 bytes per row, not bounded by work_mem (docs/dedup.md).
    s.parent = static_cast<std::uint32_t *>(MemoryContextAllocHuge(in->context, (n ? n : 1) * sizeof(std::uint32_t)));
    for (std::size_t i = 0; i < n; ++i) s.parent[i] = static_cast<std::uint32_t>(i);
    search(&s, emit_to_union_find);
    // Flatten to roots, then count rows per root (4 more bytes per row).
    auto *size = static_cast<std::uint32_t *>(MemoryContextAllocExtended(
        in->context, (n ? n : 1) * sizeof(std::uint32_t), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO));
    for (std::size_t i = 0; i < n; ++i) {
        s.parent[i] = find_root(s.parent, static_cast<std::uint32_t>(i));
        ++size[s.parent[i]];
        if ((i & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    // Rows of clusters of two or more, sorted by (representative, row): the
    // representative (its lowest row) comes first and lends its key and
    // fingerprint to the rest.
    const Oid types[4] = {INT8OID, INT8OID, TEXTOID, INT8OID};
    TupleDesc desc = make_desc(4, types);
    Tuplesortstate *sort = sort_on(desc, 2);
    TupleTableSlot *put = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
    TupleTableSlot *get = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
    TupleTableSlot *row_slot = MakeSingleTupleTableSlot(in->spilled_desc, &TTSOpsMinimalTuple);
    tuplestore_rescan(in->spilled);
    for (std::uint32_t row = 0; tuplestore_gettupleslot(in->spilled, true, false, row_slot); ++row) {
        if (size[s.parent[row]] < 2) continue;
        bool isnull;
        Datum v[4] = {Int64GetDatum(s.parent[row]), Int64GetDatum(row), slot_getattr(row_slot, 2, &isnull),
                      slot_getattr(row_slot, 1, &isnull)};
        put_sorted(sort, put, v);
        if ((row & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    end_spill(in);
    tuplesort_performsort(sort);
    MemoryContext rep_context = AllocSetContextCreate(in->context, "simhash representative", ALLOCSET_SMALL_SIZES);
    text *rep_key = nullptr;
    std::uint64_t rep_fp = 0;
    std::size_t done = 0;
    while (tuplesort_gettupleslot(sort, true, false, get, nullptr)) {
        bool isnull;
        int64 rep = DatumGetInt64(slot_getattr(get, 1, &isnull));
        int64 row = DatumGetInt64(slot_getattr(get, 2, &isnull));
        auto fp = static_cast<std::uint64_t>(DatumGetInt64(slot_getattr(get, 4, &isnull)));
        if (row == rep) {
            MemoryContextReset(rep_context);
            rep_key = static_cast<text *>(MemoryContextAlloc(rep_context, VARSIZE_ANY(DatumGetPointer(slot_getattr(get, 3, &isnull)))));
            memcpy(rep_key, DatumGetPointer(slot_getattr(get, 3, &isnull)), VARSIZE_ANY(DatumGetPointer(slot_getattr(get, 3, &isnull))));
            rep_fp = fp;
        }
        Datum values[4] = {slot_getattr(get, 3, &isnull), PointerGetDatum(rep_key),
                           Int32GetDatum(static_cast<int32>(size[rep])),
                           Int32GetDatum(simhash::hamming_distance(fp, rep_fp))};
        bool nulls[4] = {false, false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
        if ((++done & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    }
    tuplesort_end(sort);
    MemoryContextSwitchTo(old);
}
