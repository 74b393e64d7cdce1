// VACUUM of the simhash index: dead TIDs leave every table's leaves, which
// are repacked; the space is reused by later inserts into the same key ranges. Pages are never
// deleted, so no scan can land on a recycled page.
#include "index.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/table.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "utils/memutils.h"
}

namespace {

// VACUUM's verdict per heap TID, remembered across the tables: every row has
// an entry in each of the T tables, and asking the callback (a binary search
// of VACUUM's dead TIDs) T times per row was 60% of a bulk delete's time at
// K = 3 in perf. Two bits per heap slot (asked, dead), in chunks of heap
// blocks allocated as entries first point into them, over the heap's blocks
// at the start and up to half of VACUUM's memory setting (at most 1 GB: the
// dead TIDs themselves take up to the setting); any other TID is asked every
// time. This relies on what core's VACUUM guarantees and the AM API does not
// state: the callback's answer for a TID does not change during one bulk
// delete (its dead TIDs stay LP_DEAD until the heap's next pass).
class DeadTids {
  public:
    DeadTids(IndexVacuumInfo *info, IndexBulkDeleteCallback callback, void *state)
        : callback_(callback), state_(state) {
        Relation heap = table_open(info->index->rd_index->indrelid, AccessShareLock);
        blocks_ = RelationGetNumberOfBlocks(heap);
        table_close(heap, AccessShareLock);
        int memory_kb = IsAutoVacuumWorkerProcess() && autovacuum_work_mem != -1 ? autovacuum_work_mem
                                                                                  : maintenance_work_mem;
        Size budget = Min(Size{static_cast<unsigned>(memory_kb)} * 1024 / 2, MaxAllocSize);
        chunks_left_ = budget / kChunkBytes;
        Size nchunks = (Size{blocks_} + kChunkBlocks - 1) / kChunkBlocks;
        chunks_ = static_cast<uint64 **>(palloc0(Max(nchunks, Size{1}) * sizeof(uint64 *)));
    }
    // No destructor: an ERROR longjmps past this frame, and the memory
    // context frees the chunks then.
    void release() {
        for (Size i = 0; i < (Size{blocks_} + kChunkBlocks - 1) / kChunkBlocks; ++i)
            if (chunks_[i] != nullptr) pfree(chunks_[i]);
        pfree(chunks_);
    }

    bool operator()(ItemPointer tid) {
        // (NoCheck: a damaged entry's offset 0 goes to the callback, as before.)
        BlockNumber blk = ItemPointerGetBlockNumberNoCheck(tid);
        OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);
        if (blk >= blocks_ || off < FirstOffsetNumber || off > MaxHeapTuplesPerPage) return callback_(tid, state_);
        uint64 *&chunk = chunks_[blk / kChunkBlocks];
        if (chunk == nullptr) {
            if (chunks_left_ == 0) return callback_(tid, state_);
            chunk = static_cast<uint64 *>(palloc0(kChunkBytes));
            --chunks_left_;
        }
        Size slot = Size{blk % kChunkBlocks} * MaxHeapTuplesPerPage + (off - FirstOffsetNumber);
        uint64 *pair = chunk + 2 * (slot / 64), bit = uint64{1} << (slot % 64);
        if (!(pair[0] & bit)) {
            pair[0] |= bit;
            if (callback_(tid, state_)) pair[1] |= bit;
        }
        return (pair[1] & bit) != 0;
    }

  private:
    static constexpr Size kChunkBlocks = 1024;
    // per 64 slots: the asked word, then the dead word (74,496 bytes)
    static constexpr Size kChunkBytes = 2 * sizeof(uint64) * ((kChunkBlocks * MaxHeapTuplesPerPage + 63) / 64);

    IndexBulkDeleteCallback callback_;
    void *state_;
    BlockNumber blocks_ = 0;
    uint64 **chunks_ = nullptr;
    Size chunks_left_ = 0;
};

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
    DeadTids dead(info, callback, state);
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
            if (dead(&tid)) continue;
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
    dead.release();
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
