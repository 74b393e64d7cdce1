// Bulk build and the empty (init fork) build of the simhash index.
//
// The build chooses the layout from the table's size and collects (fingerprint,
// TID) once; for each table it sorts the permuted keys and writes packed leaves
// left to right at 90% fill with the internal levels above, with no WAL;
// log_newpage_range logs the finished relation.
// The collection is bounded by maintenance_work_mem: when it fills, every
// table's keys are sorted and spilled as a run (key_spill.hpp), and each
// table is then written from the merge of its runs.
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "optimizer/plancat.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
}

#include "entry_sort.hpp"
#include "key_spill.hpp"

namespace {

struct BuildState {
    sx::Layout layout;
    int tables;
    // One buffer of entries: rows (fingerprint, TID) from the front, rows
    // whose fingerprint is NULL, (0, TID), from the back. It grows up to
    // `budget` entries (maintenance_work_mem), then spills.
    sx::EntryKey *buf;
    Size n;
    Size nnulls;
    Size cap;
    Size budget;
    KeySpill *spill;  // null until the buffer first overflows
    Size rows;        // rows with a fingerprint, spilled or not
    Size null_rows;
};

constexpr double kBuildFill = 0.9;
constexpr Size kFirstCapacity = 1024;

sx::EntryKey *null_rows_of(BuildState *st) { return st->buf + st->cap - st->nnulls; }

// Turns keys of table `from` (-1: plain fingerprints) into keys of table `to`
// in place, so one buffer serves every table.
void rekey(const sx::Layout &layout, sx::EntryKey *keys, Size n, int from, int to) {
    for (Size i = 0; i < n; ++i) {
        if (i % 65536 == 0) CHECK_FOR_INTERRUPTS();
        uint64 fp = from < 0 ? keys[i].key : sx::table_fingerprint(layout, from, keys[i].key);
        keys[i].key = sx::table_key(layout, to, fp);
    }
}

// std::sort, answering cancel while it runs: a sort of the 67M keys that 1 GB
// of maintenance_work_mem holds takes seconds. An ERROR leaves the sort by
// longjmp, which is defined here: its frames hold only pointers and keys,
// all trivially destructible.
void sort_keys(sx::EntryKey *begin, sx::EntryKey *end) {
    uint32 compared = 0;
    std::sort(begin, end, [&compared](const sx::EntryKey &a, const sx::EntryKey &b) {
        if ((++compared & ((1u << 20) - 1)) == 0) CHECK_FOR_INTERRUPTS();
        return sx::KeyLess()(a, b);
    });
}

// Sorts the buffer once per table (and the NULL rows) into one run each.
void spill_buffer(BuildState *st) {
    if (st->spill == nullptr) st->spill = key_spill_create(st->tables + 1);
    for (int t = 0; t < st->tables; ++t) {
        rekey(st->layout, st->buf, st->n, t - 1, t);
        sort_keys(st->buf, st->buf + st->n);
        key_spill_add_run(st->spill, t, st->buf, st->n);
    }
    sort_keys(null_rows_of(st), st->buf + st->cap);
    key_spill_add_run(st->spill, st->tables, null_rows_of(st), st->nnulls);
    st->n = 0;
    st->nnulls = 0;
}

// Room for one more entry: grow the buffer while the budget allows, else spill it.
void make_room(BuildState *st) {
    if (st->n + st->nnulls < st->cap) return;
    if (st->cap < st->budget) {
        Size cap = Min(st->cap * 2, st->budget);
        st->buf = static_cast<sx::EntryKey *>(repalloc_huge(st->buf, cap * sizeof(sx::EntryKey)));
        memmove(st->buf + cap - st->nnulls, st->buf + st->cap - st->nnulls, st->nnulls * sizeof(sx::EntryKey));
        st->cap = cap;
        return;
    }
    spill_buffer(st);
}

void collect(Relation, ItemPointer tid, Datum *values, bool *isnull, bool, void *arg) {
    BuildState *st = static_cast<BuildState *>(arg);
    make_room(st);
    if (isnull[0]) {
        st->buf[st->cap - ++st->nnulls] = entry_key(0, tid);
        ++st->null_rows;
        return;
    }
    st->buf[st->n++] = entry_key(DatumGetSimhash64(values[0]), tid);
    ++st->rows;
}

void fill_meta(Page page, const SimhashMeta &meta) {
    simhash_init_page(page, kPageMeta, 0, 0);
    memcpy(PageGetContents(page), &meta, sizeof(meta));
    ((PageHeader)page)->pd_lower = page_area_offset() + sizeof(meta);
}

// Where a table's keys come from, in order, one at a time: an array sorted in
// memory or the merge of spilled runs.
struct SortedKeys {
    bool (*next)(void *arg, sx::EntryKey *key);
    void *arg;
};

struct ArrayKeys {
    const sx::EntryKey *at;
    const sx::EntryKey *end;
};

bool next_in_array(void *arg, sx::EntryKey *key) {
    ArrayKeys *a = static_cast<ArrayKeys *>(arg);
    if (a->at == a->end) return false;
    *key = *a->at++;
    return true;
}

bool next_spilled(void *arg, sx::EntryKey *key) { return key_spill_next(static_cast<KeySpill *>(arg), key); }

// Writes one internal level of table `table` from `n` children (low, child,
// summary) into consecutive new pages; `out` receives one downlink per page
// written, its summary that of the page's children; returns how many.
Size write_level(Relation index, int table, uint16 level, const sx::InternalEntry *children, Size n,
                 sx::InternalEntry *out) {
    Size per = static_cast<Size>(internal_capacity() * kBuildFill);
    Size pages = (n + per - 1) / per;
    for (Size p = 0; p < pages; ++p) {
        CHECK_FOR_INTERRUPTS();
        Size from = p * per, to = std::min(n, from + per);
        Buffer buf = simhash_new_buffer(index);
        Page page = BufferGetPage(buf);
        simhash_init_page(page, kPageInternal, level, static_cast<uint16>(table));
        for (Size i = from; i < to; ++i) sx::internal_put(page_area(page), i - from, children[i]);
        internal_set_count(page, to - from);
        sx::EntryKey low = p == 0 ? sx::EntryKey{0, 0, 0} : children[from].low;
        sx::leaf_put(page_opaque(page)->low, 0, low);
        if (p + 1 < pages) {
            sx::leaf_put(page_opaque(page)->high, 0, children[to].low);
            page_opaque(page)->has_high = 1;
            page_opaque(page)->right = BufferGetBlockNumber(buf) + 1;  // the build is the only writer
        }
        out[p] = simhash_downlink(page, low, BufferGetBlockNumber(buf));
        MarkBufferDirty(buf);
        UnlockReleaseBuffer(buf);
    }
    return pages;
}

// Writes the leaf level of one table from its entries, consumed one at a
// time in sorted order: each leaf takes entries while its packed size stays
// within the build fill, so leaves end where the data's widths say.
class LeafWriter {
  public:
    LeafWriter(Relation index, int table, sx::InternalEntry *out)
        : index_(index), table_(table), out_(out),
          pending_(static_cast<sx::EntryKey *>(palloc(sx::kMaxPackedEntries * sizeof(sx::EntryKey)))) {}
    void add(const sx::EntryKey &e) {
        if (n_ > 0 && !sizer_.fits_with(e, budget())) flush(&e);
        pending_[n_++] = e;
        sizer_.add(e);
    }
    // Writes the last leaf (an empty one for an empty table); returns the
    // number of leaves.
    Size finish() {
        if (n_ > 0 || pages_ == 0) flush(nullptr);
        pfree(pending_);
        return pages_;
    }

  private:
    static Size budget() { return static_cast<Size>(page_area_capacity() * kBuildFill); }
    // Writes the pending entries as one leaf; `next` is the first entry of the
    // next leaf, its high key, or nullptr for the last.
    void flush(const sx::EntryKey *next) {
        CHECK_FOR_INTERRUPTS();
        Buffer buf = simhash_new_buffer(index_);
        Page page = BufferGetPage(buf);
        simhash_init_page(page, kPageLeaf, 0, static_cast<uint16>(table_));
        leaf_set_bytes(page, sx::leaf_write(pending_, n_, nullptr, 0, page_area(page)));
        sx::EntryKey low = pages_ == 0 ? sx::EntryKey{0, 0, 0} : pending_[0];
        sx::leaf_put(page_opaque(page)->low, 0, low);
        if (next != nullptr) {
            sx::leaf_put(page_opaque(page)->high, 0, *next);
            page_opaque(page)->has_high = 1;
            page_opaque(page)->right = BufferGetBlockNumber(buf) + 1;  // the build is the only writer
        }
        out_[pages_++] = simhash_downlink(page, low, BufferGetBlockNumber(buf));
        MarkBufferDirty(buf);
        UnlockReleaseBuffer(buf);
        n_ = 0;
        sizer_ = sx::PackSizer();
    }

    Relation index_;
    int table_;
    sx::InternalEntry *out_;
    sx::EntryKey *pending_;
    Size n_ = 0, pages_ = 0;
    sx::PackSizer sizer_;
};

// Fewer entries than any full leaf of the build holds (a leaf ends when one
// more 14-byte entry, the widest packing, would pass the fill): bounds the
// number of leaves.
Size min_entries_per_leaf() {
    return (static_cast<Size>(page_area_capacity() * kBuildFill) - sx::kPackedHeaderSize) / sx::kLeafEntrySize - 1;
}

// Writes the keys of `keys` as one tree; returns its root.
BlockNumber write_tree(Relation index, int table, SortedKeys *keys, sx::InternalEntry *a, sx::InternalEntry *b) {
    LeafWriter leaves(index, table, a);
    sx::EntryKey e;
    while (keys->next(keys->arg, &e)) leaves.add(e);
    Size n = leaves.finish();
    uint16 level = 0;
    while (n > 1) {
        n = write_level(index, table, ++level, a, n, b);
        std::swap(a, b);
    }
    return a[0].child;
}

// Room to sort a table's entries by buckets (sx::sort_entries) in memory,
// when maintenance_work_mem holds a second copy of them.
struct BucketScratch {
    sx::EntryKey *entries;  // null: sort by comparison alone
    Size *ends;
};

// Sorts `n` keys in memory and writes them as one tree.
BlockNumber write_sorted_array(Relation index, int table, sx::EntryKey *keys, Size n, const BucketScratch &scratch,
                               sx::InternalEntry *a, sx::InternalEntry *b) {
    if (scratch.entries)
        sx::sort_entries(keys, n, scratch.entries, scratch.ends, [] { CHECK_FOR_INTERRUPTS(); });
    else
        sort_keys(keys, keys + n);
    ArrayKeys array{keys, keys + n};
    SortedKeys source{next_in_array, &array};
    return write_tree(index, table, &source, a, b);
}

// Writes sort `sort` of the spill as one tree.
BlockNumber write_spilled(Relation index, int table, KeySpill *spill, int sort, Size memory, sx::InternalEntry *a,
                          sx::InternalEntry *b) {
    key_spill_begin_read(spill, sort, memory);
    SortedKeys source{next_spilled, spill};
    BlockNumber root = write_tree(index, table, &source, a, b);
    key_spill_end_read(spill);
    return root;
}

}  // namespace

extern "C" IndexBuildResult *simhash_ambuild(Relation heap, Relation index, IndexInfo *info) {
    simhash_check_column_type(index);
    if (RelationGetNumberOfBlocks(index) != 0)
        elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));
    SimhashMeta meta{};
    meta.magic = kSimhashIndexMagic;
    meta.version = kSimhashIndexVersion;
    // The layout fits the rows the table holds now, as the planner estimates
    // them (reltuples scaled to the current size): the scan keys rows for the
    // tables as it spills, before it has counted them. REINDEX chooses again.
    BlockNumber heap_pages;
    double heap_rows, allvisfrac;
    estimate_rel_size(heap, nullptr, &heap_pages, &heap_rows, &allvisfrac);
    simhash_meta_set_layout(&meta, simhash_layout_option(index, heap_rows));

    Buffer metabuf = simhash_new_buffer(index);  // block 0, filled in at the end
    fill_meta(BufferGetPage(metabuf), meta);
    MarkBufferDirty(metabuf);
    UnlockReleaseBuffer(metabuf);

    const Size memory = static_cast<Size>(maintenance_work_mem) * 1024;
    BuildState st{};
    st.layout = simhash_layout(meta);
    st.tables = meta.tables;
    st.budget = Max(memory / sizeof(sx::EntryKey), kFirstCapacity);
    st.cap = kFirstCapacity;
    st.buf = static_cast<sx::EntryKey *>(palloc(st.cap * sizeof(sx::EntryKey)));
    pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, kPhaseScanHeap);
    double heap_tuples = table_index_build_scan(heap, index, info, true, true, collect, &st, nullptr);

    const int params[] = {PROGRESS_CREATEIDX_SUBPHASE, PROGRESS_CREATEIDX_TUPLES_TOTAL, PROGRESS_CREATEIDX_TUPLES_DONE};
    const int64 values[] = {kPhaseWriteTables, static_cast<int64>(st.rows) * meta.tables, 0};
    pgstat_progress_update_multi_param(3, params, values);
    // One downlink per page of a level: the leaf level has the most.
    Size level_slots = Max(st.rows, st.null_rows) / min_entries_per_leaf() + 2;
    if (st.spill != nullptr) {
        // The last load joins the runs, and its memory becomes read buffers.
        spill_buffer(&st);
        pfree(st.buf);
        st.buf = nullptr;
    }
    sx::InternalEntry *a = static_cast<sx::InternalEntry *>(MemoryContextAllocHuge(CurrentMemoryContext, level_slots * sizeof(sx::InternalEntry)));
    sx::InternalEntry *b = static_cast<sx::InternalEntry *>(MemoryContextAllocHuge(CurrentMemoryContext, level_slots * sizeof(sx::InternalEntry)));
    // Buckets pay from about as many rows as there are buckets, and need a
    // second copy of the rows and the bucket ends next to the buffer as
    // allocated (up to twice its rows), all within maintenance_work_mem.
    BucketScratch scratch{nullptr, nullptr};
    const Size scratch_bytes = st.n * sizeof(sx::EntryKey) + (sx::kSortBuckets + 1) * sizeof(Size);
    if (st.spill == nullptr && st.n >= sx::kSortBuckets && st.cap * sizeof(sx::EntryKey) + scratch_bytes <= memory) {
        scratch.entries = static_cast<sx::EntryKey *>(MemoryContextAllocHuge(CurrentMemoryContext, st.n * sizeof(sx::EntryKey)));
        scratch.ends = static_cast<Size *>(palloc((sx::kSortBuckets + 1) * sizeof(Size)));
    }
    for (int t = 0; t < meta.tables; ++t) {
        if (st.spill == nullptr) {
            rekey(st.layout, st.buf, st.n, t - 1, t);
            meta.roots[t] = write_sorted_array(index, t, st.buf, st.n, scratch, a, b);
        } else
            meta.roots[t] = write_spilled(index, t, st.spill, t, memory, a, b);
        pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, static_cast<int64>(st.rows) * (t + 1));
    }
    if (st.spill == nullptr) {
        // (NULL rows all have key 0: one bucket, nothing to gain.)
        meta.roots[meta.tables] =
            write_sorted_array(index, meta.tables, null_rows_of(&st), st.nnulls, BucketScratch{nullptr, nullptr}, a, b);
        pfree(st.buf);
    } else {
        meta.roots[meta.tables] = write_spilled(index, meta.tables, st.spill, meta.tables, memory, a, b);
        key_spill_close(st.spill);
    }
    pfree(a);
    pfree(b);
    if (scratch.entries) {
        pfree(scratch.entries);
        pfree(scratch.ends);
    }

    metabuf = ReadBuffer(index, kMetaBlock);
    LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
    fill_meta(BufferGetPage(metabuf), meta);
    MarkBufferDirty(metabuf);
    UnlockReleaseBuffer(metabuf);

    if (RelationNeedsWAL(index))
        log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);

    IndexBuildResult *result = static_cast<IndexBuildResult *>(palloc(sizeof(IndexBuildResult)));
    result->heap_tuples = heap_tuples;
    result->index_tuples = static_cast<double>(st.rows);
    return result;
}

// The init fork of an UNLOGGED index: a metapage and one empty leaf per
// table and for the NULL list.
extern "C" void simhash_ambuildempty(Relation index) {
    SimhashMeta meta{};
    meta.magic = kSimhashIndexMagic;
    meta.version = kSimhashIndexVersion;
    simhash_meta_set_layout(&meta, simhash_layout_option(index, 0));
    for (int t = 0; t <= meta.tables; ++t) meta.roots[t] = static_cast<BlockNumber>(t + 1);
    PGAlignedBlock block;
    Page page = static_cast<Page>(block.data);
    for (BlockNumber blk = 0; blk <= static_cast<BlockNumber>(meta.tables) + 1; ++blk) {
        if (blk == kMetaBlock)
            fill_meta(page, meta);
        else
            simhash_init_page(page, kPageLeaf, 0, static_cast<uint16>(blk - 1));
        PageSetChecksumInplace(page, blk);
        smgrextend(RelationGetSmgr(index), INIT_FORKNUM, blk, block.data, true);
        log_newpage(&RelationGetSmgr(index)->smgr_rnode.node, INIT_FORKNUM, blk, page, true);
    }
    smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
