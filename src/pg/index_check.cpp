// simhash_index_check (in the spirit of amcheck) and simhash_index_info.
// Both walk each table's tree top down, left to right, and verify what the
// searches rely on: page kinds and levels, key ranges [low, high) handed
// down by parents, sorted internal pages, right-links between siblings.
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/heapam.h"
#include "access/xlog.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "lib/bloomfilter.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
}

extern "C" bool simhash_amgettuple(IndexScanDesc scan, ScanDirection dir);

namespace {

struct Walk {
    Relation index;
    Relation heap;
    int table;
    int64 pages;
    int64 entries;
    int64 dead;
    int longest_chain;
    int chain;
    bool chain_open;
    uint64 chain_key;
    int height;
    bool count_dead;
    // count_dead: a dirty snapshot, which sees rows that are being inserted
    // or deleted, so that only deletions already committed count
    Snapshot dirty;
    bool relaxed;        // writers may run: follow splits made after a parent was read
    bloom_filter *entries_seen;  // heapallindexed: every table's entries
};

// heapallindexed remembers the walk's entries in a Bloom filter, as amcheck
// does: memory stays within maintenance_work_mem (16 bytes per entry and
// table would take 16 GB at 100M rows and 10 tables), a row reported missing
// is missing, and a missing entry escapes only if it collides: 0.05% to 2%
// of the time, as the filter holds 16 down to 8 bits per entry (it rounds to
// a power of two), fewer where maintenance_work_mem is the limit. A fixed
// seed makes a report reproducible.
constexpr uint64 kEntriesSeenSeed = 0x53484958434b3031;  // "SHIXCK01"
// The other direction: each visible row's entries, as the heap gives them.
constexpr uint64 kRowEntriesSeed = 0x53484958434b3032;  // "SHIXCK02"

struct EntryBytes {
    unsigned char bytes[16];
};

EntryBytes entry_bytes(int table, const sx::EntryKey &e) {
    EntryBytes b;
    uint16 t = static_cast<uint16>(table);
    memcpy(b.bytes, &e.key, 8);
    memcpy(b.bytes + 8, &e.block, 4);
    memcpy(b.bytes + 12, &e.offset, 2);
    memcpy(b.bytes + 14, &t, 2);
    return b;
}

void add_entry(bloom_filter *filter, int table, const sx::EntryKey &e) {
    EntryBytes b = entry_bytes(table, e);
    bloom_add_element(filter, b.bytes, sizeof(b.bytes));
}

bool has_entry(bloom_filter *filter, int table, const sx::EntryKey &e) {
    EntryBytes b = entry_bytes(table, e);
    return !bloom_lacks_element(filter, b.bytes, sizeof(b.bytes));
}

pg_attribute_noreturn() void corrupt(const Walk &w, BlockNumber blk, const char *what) {
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                    errmsg("simhash index \"%s\" is corrupt: table %d, block %u: %s",
                           RelationGetRelationName(w.index), w.table, blk, what)));
}

void leaf_chain(Walk *w, Page page) {
    sx::Leaf leaf = page_leaf(page);
    size_t n = leaf.size();
    bool single = n > 0;
    uint64 key = n > 0 ? leaf.get(0).key : 0;
    size_t cursor = 0;
    for (size_t i = 1; i < n && single; ++i) single = leaf.get(i, &cursor).key == key;
    if (single && w->chain_open && w->chain_key == key)
        w->chain++;
    else
        w->chain = single ? 1 : 0;
    w->chain_open = single;
    w->chain_key = key;
    w->longest_chain = std::max(w->longest_chain, w->chain);
}

// Checks page `blk` against the range [low, high) and right-link its parent
// hands down, then its children. A walk that does not keep writers out
// (`relaxed`) may find the page split after its parent was copied: the page
// then ends before the parent's bound, and the pages split off it, reached by
// right-links (entries only move right, pages are never deleted), cover the
// rest; each is checked in turn. Under ShareLock no such chain can exist (a
// split updates the parent in the same record), so it is corruption there.
// `down` is the parent's downlink, whose summary must allow every key below
// (unchecked by a relaxed walk: an insert may have weakened it, and landed
// its key, after the parent was copied).
void walk(Walk *w, BlockNumber blk, int level, sx::EntryKey low, bool has_high, const sx::EntryKey &high,
          BlockNumber right, const sx::InternalEntry *down) {
    // One frame (and a page copy) per level: a corrupt root claiming
    // thousands of levels must end in an error, not past the stack.
    check_stack_depth();
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        if (blk == kMetaBlock || blk >= RelationGetNumberOfBlocks(w->index)) corrupt(*w, blk, "link out of range");
        PGAlignedBlock copy;
        Buffer buf = ReadBuffer(w->index, blk);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        memcpy(copy.data, BufferGetPage(buf), BLCKSZ);
        UnlockReleaseBuffer(buf);
        Page page = copy.data;
        w->pages++;
        if (const char *what = simhash_page_shape_problem(page)) corrupt(*w, blk, what);
        SimhashPageOpaque *op = page_opaque(page);
        bool leaf = op->flags == kPageLeaf;
        if (op->table != w->table) corrupt(*w, blk, "page of another table");
        if (level >= 0 ? op->level != level : false) corrupt(*w, blk, "wrong level");
        if (level < 0) w->height = op->level + 1;
        if (sx::compare_keys(page_low(page), low) != 0) corrupt(*w, blk, "low key differs from the parent's");
        // (Also what keeps a relaxed walk from going round a cycle of right-links.)
        if (!page_range_ok(page)) corrupt(*w, blk, "high key not above low key");
        bool split_off = w->relaxed && op->has_high && (!has_high || sx::key_less(page_high(page), high));
        bool page_has_high = split_off || has_high;
        sx::EntryKey page_bound = split_off ? page_high(page) : high;
        if ((op->has_high != 0) != page_has_high || (page_has_high && sx::compare_keys(page_high(page), page_bound) != 0))
            corrupt(*w, blk, "high key differs from the parent's");
        if (!split_off && op->right != right) corrupt(*w, blk, "right-link differs from the parent's next child");
        size_t bad;
        if (leaf) {
            // The packed header against the leaf's length, the segment sorted,
            // segment and tail inside [low, high).
            if (const char *what = sx::leaf_check(page_area(page), leaf_bytes(page), low, page_has_high, page_bound, &bad))
                corrupt(*w, blk, what);
            sx::Leaf entries = page_leaf(page);
            size_t n = entries.size();
            if (down && n > 0 && !sx::summary_covers(*down, entries.header().keys_and, entries.header().keys_or))
                corrupt(*w, blk, "leaf keys outside the parent's summary");
            w->entries += n;
            leaf_chain(w, page);
            size_t cursor = 0;
            for (size_t i = 0; i < n; ++i) {
                sx::EntryKey e = entries.get(i, &cursor);
                if (w->entries_seen) add_entry(w->entries_seen, w->table, e);
                if (w->count_dead) {
                    ItemPointerData tid;
                    entry_tid(e, &tid);
                    bool all_dead = false;
                    if (!table_index_fetch_tuple_check(w->heap, &tid, w->dirty, &all_dead)) w->dead++;
                }
            }
        } else {
            size_t n = internal_count(page);
            if (n == 0) corrupt(*w, blk, "empty internal page");
            if (!sx::internal_sorted_within(page_area(page), n, low, page_has_high, page_bound, &bad))
                corrupt(*w, blk, "internal keys out of order or range");
            if (w->relaxed) simhash_test_pause();
            for (size_t i = 0; i < n; ++i) {
                sx::InternalEntry e = sx::internal_get(page_area(page), i);
                if (down && !sx::summary_covers(*down, e.keys_and, e.keys_or))
                    corrupt(*w, blk, "internal summary outside the parent's");
                bool last = i + 1 == n;
                sx::EntryKey child_high = last ? page_bound : sx::internal_low(page_area(page), i + 1);
                // The last child's right sibling is the first child of this page's right sibling.
                BlockNumber child_right = InvalidBlockNumber;
                if (!last) {
                    child_right = sx::internal_get(page_area(page), i + 1).child;
                } else if (op->right != InvalidBlockNumber) {
                    Buffer rb = ReadBuffer(w->index, op->right);
                    LockBuffer(rb, BUFFER_LOCK_SHARE);
                    Page rp = BufferGetPage(rb);
                    child_right = !(page_opaque(rp)->flags & kPageLeaf) && internal_count(rp) > 0
                                      ? sx::internal_get(page_area(rp), 0).child
                                      : InvalidBlockNumber;
                    UnlockReleaseBuffer(rb);
                }
                walk(w, e.child, op->level - 1, e.low, last ? page_has_high : true, child_high, child_right,
                     w->relaxed ? nullptr : &e);
            }
        }
        if (!split_off) return;
        low = page_bound;
        blk = op->right;
    }
}

// Opens the index and its table, which the user must hold one of
// `privileges` on: checked before the lock is requested, so that a user who
// may not take it cannot queue for it and hold writers up. An index a failed
// CREATE INDEX CONCURRENTLY left behind is refused: before its build
// finished (not ready) its pages may be anything, and after it (not valid)
// it may lack rows by design, which `check` would call corruption (amcheck
// refuses such indexes too).
Relation open_simhash_index(Oid indexoid, Relation *heap, LOCKMODE heaplock, AclMode privileges, bool check) {
    const char *name = get_rel_name(indexoid);
    if (name == nullptr)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", indexoid)));
    if (get_rel_relkind(indexoid) == RELKIND_PARTITIONED_INDEX)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("\"%s\" is a partitioned index", name),
                        errdetail("A partitioned index has no pages of its own."),
                        errhint("Pass the index of each partition.")));
    Oid heapoid = IndexGetRelation(indexoid, true);
    if (!OidIsValid(heapoid))
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is not an index", name)));
    if (pg_class_aclmask(heapoid, GetUserId(), privileges, ACLMASK_ANY) == 0)
        aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(heapoid));
    *heap = table_open(heapoid, heaplock);
    Relation index = index_open(indexoid, AccessShareLock);
    if (index->rd_indam->amgettuple != simhash_amgettuple)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("\"%s\" is not a simhash index", RelationGetRelationName(index))));
    if (RELATION_IS_OTHER_TEMP(index))
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("cannot access temporary index \"%s\" of another session", RelationGetRelationName(index))));
    if (!index->rd_index->indisready || (check && !index->rd_index->indisvalid))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot %s simhash index \"%s\": it is not valid", check ? "check" : "read",
                               RelationGetRelationName(index)),
                        index->rd_index->indisready ? 0 : errdetail("Its build did not finish."),
                        errhint("Drop it, or rebuild it with REINDEX.")));
    return index;
}

struct Presence {
    bloom_filter *entries_seen;
    bloom_filter *row_entries;
    int ntables;
    sx::Layout layout;
    Relation index;
};

void heap_row_present(Relation, ItemPointer tid, Datum *values, bool *isnull, bool, void *arg) {
    Presence *p = static_cast<Presence *>(arg);
    bool null_row = isnull[0];
    uint64 fp = null_row ? 0 : DatumGetSimhash64(values[0]);
    for (int t = null_row ? p->ntables : 0; t < (null_row ? p->ntables + 1 : p->ntables); ++t) {
        sx::EntryKey e = entry_key(null_row ? 0 : sx::table_key(p->layout, t, fp), tid);
        add_entry(p->row_entries, t, e);
        if (!has_entry(p->entries_seen, t, e))
            ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                            errmsg("simhash index \"%s\" is corrupt: table %d lacks the heap row (%u,%u)",
                                   RelationGetRelationName(p->index), t, ItemPointerGetBlockNumber(tid),
                                   ItemPointerGetOffsetNumber(tid))));
    }
}

// Every leaf entry is a row's as the heap gives it (`row_entries`), or points
// to no row `snapshot` sees (a row deleted, or inserted later, whose entries
// VACUUM has not removed): an entry with the wrong key for a live row would
// be returned for the wrong fingerprint, since scans never recheck. Blocks
// are read in order; the walk has already checked their shape.
void check_entries_have_rows(Relation index, Relation heap, bloom_filter *row_entries, Snapshot snapshot) {
    BlockNumber nblocks = RelationGetNumberOfBlocks(index);
    PGAlignedBlock copy;
    for (BlockNumber blk = kMetaBlock + 1; blk < nblocks; ++blk) {
        CHECK_FOR_INTERRUPTS();
        Buffer buf = ReadBuffer(index, blk);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        memcpy(copy.data, BufferGetPage(buf), BLCKSZ);
        UnlockReleaseBuffer(buf);
        Page page = copy.data;
        // (A page added after the walk is checked like the rest.)
        if (simhash_page_shape_problem(page) != nullptr || page_opaque(page)->flags != kPageLeaf) continue;
        int table = page_opaque(page)->table;
        sx::Leaf leaf = page_leaf(page);
        size_t cursor = 0;
        for (size_t i = 0, n = leaf.size(); i < n; ++i) {
            sx::EntryKey e = leaf.get(i, &cursor);
            if (has_entry(row_entries, table, e)) continue;
            ItemPointerData tid;
            entry_tid(e, &tid);
            bool all_dead = false;
            if (table_index_fetch_tuple_check(heap, &tid, snapshot, &all_dead))
                ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                                errmsg("simhash index \"%s\" is corrupt: table %d, block %u holds an entry for heap "
                                       "row (%u,%u) that is not that row's fingerprint",
                                       RelationGetRelationName(index), table, blk, ItemPointerGetBlockNumber(&tid),
                                       ItemPointerGetOffsetNumber(&tid))));
        }
    }
}

// Walks every table and the NULL list; the results are in tables[0..meta.tables].
void walk_all(Relation index, Relation heap, const SimhashMeta &meta, Walk *tables, bloom_filter *entries_seen,
              bool count_dead, bool relaxed) {
    SnapshotData dirty;
    InitDirtySnapshot(dirty);
    for (int t = 0; t <= meta.tables; ++t) {
        Walk *w = &tables[t];
        memset(w, 0, sizeof(*w));
        w->index = index;
        w->heap = heap;
        w->table = t;
        w->count_dead = count_dead;
        w->dirty = &dirty;
        w->relaxed = relaxed;
        w->entries_seen = entries_seen;
        if (relaxed && t > 0) simhash_test_pause();
        walk(w, meta.roots[t], -1, {0, 0, 0}, false, {0, 0, 0}, InvalidBlockNumber, nullptr);
    }
}

}  // namespace

SIMHASH_FUNCTION(simhash_index_check) {
    Oid indexoid = PG_GETARG_OID(0);
    bool heapallindexed = PG_GETARG_BOOL(1);
    Relation heap;
    // ShareLock keeps writers and VACUUM out: the walk sees one consistent
    // index, and heapallindexed checks every row an MVCC snapshot taken after
    // the lock sees: every live row. Rows deleted but not yet removable are
    // not checked: one deleted before the build was never indexed, and
    // whether it still counts as not removable moves with the cleanup
    // horizon, which can move back (vacuum_defer_cleanup_age, a standby's
    // feedback). A hot standby grants at most RowExclusiveLock, and replay
    // changes the index under any lock anyway, so there the walk follows
    // concurrent splits, and each row the snapshot sees was committed, so
    // all its entries were replayed, before the snapshot, and replay cannot
    // remove them while the snapshot could still see the row (the heap's
    // cleanup records cancel conflicting standby queries first).
    bool recovery = RecoveryInProgress();
    LOCKMODE heaplock = recovery ? AccessShareLock : ShareLock;
    // The privileges LOCK TABLE asks for these modes.
    Relation index = open_simhash_index(indexoid, &heap, heaplock,
                                        recovery ? ACL_SELECT : ACL_UPDATE | ACL_DELETE | ACL_TRUNCATE, true);
    // heapallindexed evaluates the index's expressions and predicate: as
    // their owner, restricted, with settings that end with the check, so that
    // a table's owner cannot run code as whoever checks the index (what
    // amcheck does since CVE-2022-1552).
    Oid caller;
    int caller_context;
    GetUserIdAndSecContext(&caller, &caller_context);
    SetUserIdAndSecContext(heap->rd_rel->relowner, caller_context | SECURITY_RESTRICTED_OPERATION);
    int guc_level = NewGUCNestLevel();
    // A snapshot taken now, not the transaction's: an older one (REPEATABLE
    // READ) may see rows deleted before the index was built, which it never
    // held.
    Snapshot snapshot = heapallindexed ? RegisterSnapshot(GetLatestSnapshot()) : nullptr;
    SimhashMeta meta = simhash_read_meta(index);
    Walk *tables = static_cast<Walk *>(palloc0(sizeof(Walk) * (meta.tables + 1)));
    bloom_filter *entries_seen = nullptr, *row_entries = nullptr;
    if (heapallindexed) {
        // Sized for every table's entries, within maintenance_work_mem (as
        // amcheck does). reltuples is -1 on a table never analysed, and stale
        // after bulk inserts: the index's pages bound the entries too (a leaf
        // holds ~800 at 1M rows).
        double rows = Max(heap->rd_rel->reltuples, 0.0) + 1.0;
        double entries = Max(rows * (meta.tables + 1), RelationGetNumberOfBlocks(index) * 1000.0);
        // (Two filters, one for each direction, in maintenance_work_mem.)
        entries_seen = bloom_create(static_cast<int64>(entries), maintenance_work_mem / 2, kEntriesSeenSeed);
        row_entries = bloom_create(static_cast<int64>(entries), maintenance_work_mem / 2, kRowEntriesSeed);
    }
    walk_all(index, heap, meta, tables, entries_seen, false, recovery);
    if (heapallindexed) {
        Presence p{entries_seen, row_entries, meta.tables, simhash_layout(meta), index};
        IndexInfo *info = BuildIndexInfo(index);
        // An MVCC build scan: the rows that snapshot sees (ended by the build scan).
        info->ii_Concurrent = true;
        TableScanDesc scan = table_beginscan_strat(heap, snapshot, 0, nullptr, true, false);
        table_index_build_scan(heap, index, info, true, false, heap_row_present, &p, scan);
        check_entries_have_rows(index, heap, row_entries, snapshot);
    }
    if (snapshot) UnregisterSnapshot(snapshot);
    if (entries_seen) bloom_free(entries_seen);
    if (row_entries) bloom_free(row_entries);
    AtEOXact_GUC(false, guc_level);
    SetUserIdAndSecContext(caller, caller_context);
    index_close(index, AccessShareLock);
    table_close(heap, heaplock);
    PG_RETURN_VOID();
}

SIMHASH_FUNCTION(simhash_index_info) {
    Oid indexoid = PG_GETARG_OID(0);
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE) elog(ERROR, "return type must be a row type");
    Relation heap;
    Relation index = open_simhash_index(indexoid, &heap, AccessShareLock, ACL_SELECT, false);
    SimhashMeta meta = simhash_read_meta(index);
    Walk *tables = static_cast<Walk *>(palloc0(sizeof(Walk) * (meta.tables + 1)));
    // AccessShareLock lets inserts split pages while we walk.
    walk_all(index, heap, meta, tables, nullptr, true, true);
    int64 entries = 0, dead = 0;
    int longest = 0, height = 0;
    for (int t = 0; t < meta.tables; ++t) {
        entries += tables[t].entries;
        dead += tables[t].dead;
        longest = std::max(longest, tables[t].longest_chain);
        height = std::max(height, tables[t].height);
    }
    sx::Layout layout = simhash_layout(meta);
    Datum values[9] = {Int32GetDatum(meta.max_distance),
                       Int32GetDatum(meta.tables),
                       Int32GetDatum(meta.blocks),
                       Int32GetDatum(sx::min_prefix_bits(layout, meta.max_distance)),
                       Int64GetDatum(static_cast<int64>(RelationGetNumberOfBlocks(index))),
                       Int64GetDatum(entries),
                       Int64GetDatum(dead),
                       Int32GetDatum(longest),
                       Int32GetDatum(height)};
    bool nulls[9] = {};
    index_close(index, AccessShareLock);
    table_close(heap, AccessShareLock);
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
