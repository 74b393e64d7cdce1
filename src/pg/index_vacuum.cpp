// VACUUM of the simhash index: dead TIDs leave every table's leaves; the
// space is reused by later inserts into the same key ranges. Pages are never
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
            if (page_opaque(BufferGetPage(buf))->flags & kPageLeaf) per_leaf(buf);
            UnlockReleaseBuffer(buf);
        }
    }
    return nblocks;
}

}  // namespace

extern "C" IndexBulkDeleteResult *simhash_ambulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                                                       IndexBulkDeleteCallback callback, void *state) {
    if (stats == nullptr) stats = static_cast<IndexBulkDeleteResult *>(palloc0(sizeof(IndexBulkDeleteResult)));
    SimhashMeta meta = simhash_read_meta(info->index);
    double entries = 0;
    BlockNumber nblocks = walk_leaves(info, true, [&](Buffer buf) {
        GenericXLogState *xlog = GenericXLogStart(info->index);
        Page page = GenericXLogRegisterBuffer(xlog, buf, 0);
        size_t n = page_count(page);
        size_t kept = sx::leaf_remove_if(page_area(page), n, [&](const sx::EntryKey &e) {
            ItemPointerData tid;
            entry_tid(e, &tid);
            return callback(&tid, state);
        });
        if (kept == n) {
            GenericXLogAbort(xlog);
        } else {
            page_set_count(page, kept);
            GenericXLogFinish(xlog);
        }
        stats->tuples_removed += static_cast<double>(n - kept);
        entries += static_cast<double>(kept);
    });
    stats->num_pages = nblocks;
    // Each row has one entry per table; counted by rows, as the heap counts them.
    stats->num_index_tuples = entries / meta.tables;
    stats->estimated_count = true;
    return stats;
}

extern "C" IndexBulkDeleteResult *simhash_amvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats) {
    if (info->analyze_only) return stats;
    if (stats != nullptr) return stats;
    stats = static_cast<IndexBulkDeleteResult *>(palloc0(sizeof(IndexBulkDeleteResult)));
    SimhashMeta meta = simhash_read_meta(info->index);
    double entries = 0;
    stats->num_pages = walk_leaves(info, false, [&](Buffer buf) { entries += page_count(BufferGetPage(buf)); });
    stats->num_index_tuples = entries / meta.tables;
    stats->estimated_count = true;
    return stats;
}
