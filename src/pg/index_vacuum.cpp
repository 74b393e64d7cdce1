// VACUUM of the simhash index: dead TIDs leave every table's leaves, which
// are repacked; the space is reused by later inserts into the same key ranges. Pages are never
// deleted, so no scan can land on a recycled page.
#include "index.hpp"

extern "C" {
#include "commands/vacuum.h"
#include "miscadmin.h"
}

namespace {

// Walks every page in block order until no new page appeared behind us: a
// split of a page not yet visited moves entries to a new page at the end.
template <typename PerLeaf>
BlockNumber walk_leaves(IndexVacuumInfo *info, bool cleanup_lock, PerLeaf per_leaf) {
    BlockNumber blk = kMetaBlock + 1, nblocks;
    while (blk < (nblocks = RelationGetNumberOfBlocks(info->index))) {
        for (; blk < nblocks; ++blk) {
            vacuum_delay_point();
            Buffer buf = ReadBufferExtended(info->index, MAIN_FORKNUM, blk, RBM_NORMAL, info->strategy);
            if (cleanup_lock)
                LockBufferForCleanup(buf);
            else
                LockBuffer(buf, BUFFER_LOCK_SHARE);
            // A new page is all zeros until its splitter initializes it, and stays so
            // if the splitter failed (or crashed) before its WAL record.
            Page page = BufferGetPage(buf);
            if (!PageIsNew(page)) {
                simhash_check_page(info->index, buf);
                if (page_opaque(page)->flags & kPageLeaf) per_leaf(buf);
            }
            UnlockReleaseBuffer(buf);
        }
    }
    return nblocks;
}

// Rows, as the heap counts them: one entry per table for a row with a
// fingerprint, one in the NULL list for a row without.
struct RowCount {
    int tables;
    double table_entries = 0, null_entries = 0;
    void add(Page page, size_t entries) {
        (page_opaque(page)->table < tables ? table_entries : null_entries) += static_cast<double>(entries);
    }
    double rows() const { return table_entries / tables + null_entries; }
};

}  // namespace

extern "C" IndexBulkDeleteResult *simhash_ambulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                                                       IndexBulkDeleteCallback callback, void *state) {
    if (stats == nullptr) stats = static_cast<IndexBulkDeleteResult *>(palloc0(sizeof(IndexBulkDeleteResult)));
    SimhashMeta meta = simhash_read_meta(info->index);
    RowCount rows{meta.tables}, removed{meta.tables};
    // The leaf's entries, then room for the survivors' merge.
    sx::EntryKey *scratch = static_cast<sx::EntryKey *>(palloc(2 * kMaxLeafEntries * sizeof(sx::EntryKey)));
    sx::EntryKey *merged = scratch + kMaxLeafEntries;
    BlockNumber nblocks = walk_leaves(info, true, [&](Buffer buf) {
        Page page = BufferGetPage(buf);
        sx::Leaf leaf = page_leaf(page);
        size_t n = leaf.unpack(scratch), np = leaf.packed_count(), kept = 0, kept_packed = 0;
        for (size_t i = 0; i < n; ++i) {
            ItemPointerData tid;
            entry_tid(scratch[i], &tid);
            if (callback(&tid, state)) continue;
            scratch[kept++] = scratch[i];
            if (i < np) kept_packed = kept;
        }
        if (kept < n) {
            // The survivors all packed if they fit under the repack limit,
            // else the segment's survivors packed and the tail's kept as tail
            // (no larger than before).
            sx::PackSizer sizer;
            for (size_t i = 0; i < kept; ++i) sizer.add(scratch[i]);
            const sx::EntryKey *out = scratch;
            if (sizer.bytes() <= leaf_repack_limit()) {
                sx::merge_segment_and_tail(scratch, kept_packed, kept, merged);
                out = merged;
                kept_packed = kept;
            }
            GenericXLogState *xlog = GenericXLogStart(info->index);
            Page copy = GenericXLogRegisterBuffer(xlog, buf, 0);
            leaf_set_bytes(copy,
                           sx::leaf_write(out, kept_packed, out + kept_packed, kept - kept_packed, page_area(copy)));
            GenericXLogFinish(xlog);
        }
        removed.add(page, n - kept);
        rows.add(page, kept);
    });
    pfree(scratch);
    stats->num_pages = nblocks;
    stats->tuples_removed += removed.rows();
    stats->num_index_tuples = rows.rows();
    stats->estimated_count = true;
    return stats;
}

extern "C" IndexBulkDeleteResult *simhash_amvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats) {
    if (info->analyze_only) return stats;
    if (stats != nullptr) return stats;
    stats = static_cast<IndexBulkDeleteResult *>(palloc0(sizeof(IndexBulkDeleteResult)));
    SimhashMeta meta = simhash_read_meta(info->index);
    RowCount rows{meta.tables};
    stats->num_pages = walk_leaves(info, false, [&](Buffer buf) {
        Page page = BufferGetPage(buf);
        rows.add(page, page_leaf(page).size());
    });
    stats->num_index_tuples = rows.rows();
    stats->estimated_count = true;
    return stats;
}
