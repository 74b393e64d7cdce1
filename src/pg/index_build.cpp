// Bulk build and the empty (init fork) build of the simhash index.
//
// The build collects (fingerprint, TID) once, then for each table sorts the
// rotated keys and writes packed leaves left to right at 90% fill with the
// internal levels above, with no WAL; log_newpage_range logs the finished relation.
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/tableam.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
}

namespace {

struct Collected {
    uint64 fp;
    ItemPointerData tid;
};

struct BuildState {
    Collected *items;
    Size n;
    Size cap;
    sx::EntryKey *nulls;  // rows whose fingerprint is NULL: (0, TID)
    Size nnulls;
    Size capnulls;
};

constexpr double kBuildFill = 0.9;

void collect(Relation, ItemPointer tid, Datum *values, bool *isnull, bool, void *arg) {
    BuildState *st = static_cast<BuildState *>(arg);
    if (isnull[0]) {
        if (st->nnulls == st->capnulls) {
            st->capnulls *= 2;
            st->nulls = static_cast<sx::EntryKey *>(repalloc_huge(st->nulls, st->capnulls * sizeof(sx::EntryKey)));
        }
        st->nulls[st->nnulls++] = entry_key(0, tid);
        return;
    }
    if (st->n == st->cap) {
        st->cap *= 2;
        st->items = static_cast<Collected *>(repalloc_huge(st->items, st->cap * sizeof(Collected)));
    }
    st->items[st->n].fp = DatumGetSimhash64(values[0]);
    st->items[st->n].tid = *tid;
    st->n++;
}

void fill_meta(Page page, const SimhashMeta &meta) {
    simhash_init_page(page, kPageMeta, 0, 0);
    memcpy(PageGetContents(page), &meta, sizeof(meta));
    ((PageHeader)page)->pd_lower = page_area_offset() + sizeof(meta);
}

// Writes one internal level of table `table` from `n` children (low, child)
// into consecutive new pages; `out` receives one (low, block) per page
// written; returns how many.
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
        out[p] = {low, BufferGetBlockNumber(buf)};
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
        if (n_ > 0 && sizer_.bytes_with(e) > budget()) flush(&e);
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
        out_[pages_++] = {low, BufferGetBlockNumber(buf)};
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

// Sorts `keys` and writes them as one tree; returns its root.
BlockNumber write_tree(Relation index, int table, sx::EntryKey *keys, Size nkeys, sx::InternalEntry *a,
                       sx::InternalEntry *b) {
    std::sort(keys, keys + nkeys, sx::key_less);
    LeafWriter leaves(index, table, a);
    for (Size i = 0; i < nkeys; ++i) leaves.add(keys[i]);
    Size n = leaves.finish();
    uint16 level = 0;
    while (n > 1) {
        n = write_level(index, table, ++level, a, n, b);
        std::swap(a, b);
    }
    return a[0].child;
}

}  // namespace

extern "C" IndexBuildResult *simhash_ambuild(Relation heap, Relation index, IndexInfo *info) {
    if (RelationGetNumberOfBlocks(index) != 0)
        elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));
    SimhashMeta meta{};
    meta.magic = kSimhashIndexMagic;
    meta.version = kSimhashIndexVersion;
    meta.max_distance = simhash_max_distance_option(index);
    meta.tables = meta.max_distance + 1;
    sx::Layout layout = simhash_layout(meta);

    Buffer metabuf = simhash_new_buffer(index);  // block 0, filled in at the end
    fill_meta(BufferGetPage(metabuf), meta);
    MarkBufferDirty(metabuf);
    UnlockReleaseBuffer(metabuf);

    BuildState st{static_cast<Collected *>(palloc(1024 * sizeof(Collected))), 0, 1024,
                  static_cast<sx::EntryKey *>(palloc(64 * sizeof(sx::EntryKey))), 0, 64};
    pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, kPhaseScanHeap);
    double heap_tuples = table_index_build_scan(heap, index, info, true, true, collect, &st, nullptr);

    const int params[] = {PROGRESS_CREATEIDX_SUBPHASE, PROGRESS_CREATEIDX_TUPLES_TOTAL, PROGRESS_CREATEIDX_TUPLES_DONE};
    const int64 values[] = {kPhaseWriteTables, static_cast<int64>(st.n) * meta.tables, 0};
    pgstat_progress_update_multi_param(3, params, values);
    Size slots = Max(st.n, st.nnulls) + 1;
    // One (low, block) per page of a level: the leaf level has the most.
    Size level_slots = slots / min_entries_per_leaf() + 2;
    sx::EntryKey *keys = static_cast<sx::EntryKey *>(MemoryContextAllocHuge(CurrentMemoryContext, slots * sizeof(sx::EntryKey)));
    sx::InternalEntry *a = static_cast<sx::InternalEntry *>(MemoryContextAllocHuge(CurrentMemoryContext, level_slots * sizeof(sx::InternalEntry)));
    sx::InternalEntry *b = static_cast<sx::InternalEntry *>(MemoryContextAllocHuge(CurrentMemoryContext, level_slots * sizeof(sx::InternalEntry)));
    for (int t = 0; t < meta.tables; ++t) {
        for (Size i = 0; i < st.n; ++i) keys[i] = entry_key(sx::table_key(layout, t, st.items[i].fp), &st.items[i].tid);
        meta.roots[t] = write_tree(index, t, keys, st.n, a, b);
        pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, static_cast<int64>(st.n) * (t + 1));
    }
    meta.roots[meta.tables] = write_tree(index, meta.tables, st.nulls, st.nnulls, a, b);
    pfree(keys);
    pfree(a);
    pfree(b);
    pfree(st.items);
    pfree(st.nulls);

    metabuf = ReadBuffer(index, kMetaBlock);
    LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
    fill_meta(BufferGetPage(metabuf), meta);
    MarkBufferDirty(metabuf);
    UnlockReleaseBuffer(metabuf);

    if (RelationNeedsWAL(index))
        log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);

    IndexBuildResult *result = static_cast<IndexBuildResult *>(palloc(sizeof(IndexBuildResult)));
    result->heap_tuples = heap_tuples;
    result->index_tuples = static_cast<double>(st.n);
    return result;
}

// The init fork of an UNLOGGED index: a metapage and one empty leaf per
// table and for the NULL list.
extern "C" void simhash_ambuildempty(Relation index) {
    SimhashMeta meta{};
    meta.magic = kSimhashIndexMagic;
    meta.version = kSimhashIndexVersion;
    meta.max_distance = simhash_max_distance_option(index);
    meta.tables = meta.max_distance + 1;
    for (int t = 0; t <= meta.tables; ++t) meta.roots[t] = static_cast<BlockNumber>(t + 1);
    PGAlignedBlock block;
    Page page = static_cast<Page>(block.data);
    for (BlockNumber blk = 0; blk <= static_cast<BlockNumber>(meta.tables) + 1; ++blk) {
        if (blk == kMetaBlock)
            fill_meta(page, meta);
        else
            simhash_init_page(page, kPageLeaf, 0, static_cast<uint16>(blk - 1));
        PageSetChecksumInplace(page, blk);
        smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, blk, block.data, true);
        log_newpage(&RelationGetSmgr(index)->smgr_rnode.node, INIT_FORKNUM, blk, page, true);
    }
    smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}
