// The simhash index access method: shared page layout and tree operations.
//
// One relation holds T B-link trees (one per table of the block layout, see
// src/core/block_layout.hpp). Block 0 is the metapage, written once at build:
// the layout (blocks, each table's block order and the guaranteed prefix
// blocks per radius) and each table's root block (roots never move: a root split
// moves the root's entries into two new pages). Leaves hold (table key, heap
// TID) as a packed sorted segment plus an append tail (src/core/leaf_codec.hpp);
// internal pages are sorted (low bound, child) arrays.
// Every page carries its key range [low, high) and a right-link (Lehman-Yao).
#pragma once

extern "C" {
#include "postgres.h"
#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/reloptions.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
}

#include "block_layout.hpp"
#include "index_page.hpp"
#include "leaf_codec.hpp"
#include "simhash64.hpp"

namespace sx = simhash::index;

constexpr uint32 kSimhashIndexMagic = 0x53484958;  // "SHIX"
// 6: a summary (AND, OR) of the keys below every downlink (5 added one to
// every packed leaf's header, 4 the bucket directory, 3 a block layout of any
// permutations, 2 packed leaves, 1 was the first format): older indexes need
// a REINDEX.
constexpr uint32 kSimhashIndexVersion = 6;
constexpr BlockNumber kMetaBlock = 0;
constexpr int kDefaultMaxDistance = 3;

// Strategies of simhash_ops.
constexpr StrategyNumber kStrategyInBall = 1;
constexpr StrategyNumber kStrategyEqual = 2;
constexpr StrategyNumber kStrategyDistance = 3;

constexpr uint16 kPageLeaf = 1;
constexpr uint16 kPageInternal = 2;
constexpr uint16 kPageMeta = 4;

struct SimhashPageOpaque {
    uint16 flags;
    uint16 level;  // 0 for leaves
    uint16 table;
    uint16 has_high;
    BlockNumber right;  // InvalidBlockNumber on the rightmost page of a level
    uint8 low[sx::kLeafEntrySize];
    uint8 high[sx::kLeafEntrySize];
};

struct SimhashMeta {
    uint32 magic;
    uint32 version;
    int32 max_distance;
    int32 tables;
    // roots[tables] is the NULL list: a tree of (0, TID) for rows whose
    // fingerprint is NULL, so that scans without a qualifier return them.
    BlockNumber roots[sx::kMaxTables + 1];
    int32 blocks;
    uint8 order[sx::kMaxTables][sx::kMaxIndexBlocks];  // each table's block order
    uint8 guaranteed[sx::kMaxIndexDistance + 1];        // prefix blocks per radius
};

struct SimhashOptions {
    int32 vl_len_;
    int max_distance;
    int blocks;  // 0: chosen at build from the table's size
    int tables;  // 0: likewise
};

static inline SimhashPageOpaque *page_opaque(Page page) {
    return reinterpret_cast<SimhashPageOpaque *>(PageGetSpecialPointer(page));
}
// Every page this index initializes carries its special space: a walk over all
// blocks that finds another size has found corruption, not a page to skip.
static inline bool page_is_ours(Page page) {
    return PageGetSpecialSize(page) == MAXALIGN(sizeof(SimhashPageOpaque));
}
static inline uint8 *page_area(Page page) { return reinterpret_cast<uint8 *>(PageGetContents(page)); }
static inline size_t page_area_offset() { return MAXALIGN(SizeOfPageHeaderData); }
// Bytes between the page header and the special space.
static inline size_t page_area_capacity() {
    return BLCKSZ - page_area_offset() - MAXALIGN(sizeof(SimhashPageOpaque));
}
// Reading a packed leaf entry loads 16 bytes: the special space after the
// leaf's bytes keeps those loads inside the page.
static_assert(MAXALIGN(sizeof(SimhashPageOpaque)) >= sx::kLeafReadSlack, "special space shorter than the read slack");

static inline size_t internal_count(Page page) {
    return (((PageHeader)page)->pd_lower - page_area_offset()) / sx::kInternalEntrySize;
}
static inline void internal_set_count(Page page, size_t n) {
    ((PageHeader)page)->pd_lower = page_area_offset() + n * sx::kInternalEntrySize;
}
static inline size_t internal_capacity() { return page_area_capacity() / sx::kInternalEntrySize; }

// A leaf's bytes: packed segment, then the append tail, ending at pd_lower.
static inline size_t leaf_bytes(Page page) { return ((PageHeader)page)->pd_lower - page_area_offset(); }
static inline void leaf_set_bytes(Page page, size_t bytes) {
    ((PageHeader)page)->pd_lower = page_area_offset() + bytes;
}
static inline sx::Leaf page_leaf(Page page) { return sx::Leaf(page_area(page), leaf_bytes(page)); }
// Most entries a leaf can hold (a full segment plus a full tail): bounds
// position arrays.
constexpr size_t kMaxLeafEntries = sx::kMaxPackedEntries + BLCKSZ / sx::kLeafEntrySize;
// A leaf whose tail is full is repacked in place if everything then packs
// into this fraction of the page, else split. Leaves grown by inserts split
// near this fill, so it sets their average fill (about ln 2 of it); the 2%
// margin still leaves room for ~11 appends before the next repack.
constexpr double kRepackFill = 0.98;
static inline size_t leaf_repack_limit() { return static_cast<size_t>(page_area_capacity() * kRepackFill); }

static inline sx::EntryKey page_low(Page page) { return sx::leaf_get(page_opaque(page)->low, 0); }
static inline sx::EntryKey page_high(Page page) { return sx::leaf_get(page_opaque(page)->high, 0); }
// True when `key` lies right of this page's range: the page split, move right.
// A page's key range is not empty: key ranges then only increase along
// right-links, and no walk along them can go round in a cycle.
static inline bool page_range_ok(Page page) {
    return !page_opaque(page)->has_high || sx::key_less(page_low(page), page_high(page));
}
// Whether `page` is what a downlink of `table` to a page of `level` starting
// at `low` promises (a child keeps its level, table and low key for good).
static inline bool page_is_child(Page page, int table, int level, const sx::EntryKey &low) {
    return page_opaque(page)->table == table && page_opaque(page)->level == level &&
           sx::compare_keys(page_low(page), low) == 0;
}
static inline bool beyond_high(Page page, const sx::EntryKey &key) {
    return page_opaque(page)->has_high && !sx::key_less(key, page_high(page));
}

static inline sx::EntryKey entry_key(uint64 key, ItemPointer tid) {
    return {key, ItemPointerGetBlockNumberNoCheck(tid), ItemPointerGetOffsetNumberNoCheck(tid)};
}
static inline void entry_tid(const sx::EntryKey &e, ItemPointer tid) {
    ItemPointerSet(tid, e.block, e.offset);
}

// rd_amcache: the metapage (read once: it never changes) and the directory,
// a copy of one upper level of each table's tree (index_directory.cpp).
struct SimhashDirEntry {
    sx::EntryKey low;   // the child's low bound
    BlockNumber child;
};
// The parent's summary of a directory child's keys as it was copied: inserts
// since may have weakened it, so it only says that reading the parent again
// could rule the child out (kept apart from the entries, which a probe's
// search reads).
struct SimhashDirSummary {
    uint64 keys_and, keys_or;
};
// (alignas: the entries that follow need 8-byte alignment, SimhashMeta only 4.)
struct alignas(8) SimhashCache {
    SimhashMeta meta;
    bool loaded;   // the directory was read (else the metapage only)
    uint32 hops;   // right-links scans followed from directory children since
    // Until the directory is read: internal pages the scans read from the
    // roots, and how many of them pay for reading it (index_directory.cpp).
    uint32 descended, read_directory_after;
    uint32 start[sx::kMaxTables + 1];  // table t's entries: [start[t], start[t + 1])
    int16 child_level[sx::kMaxTables]; // level of the pages they point to; -1: none
    uint32 total;                      // entries over all tables
    uint32 guide_start[sx::kMaxTables + 1]; // table t's radix guide to its lows: [guide_start[t], guide_start[t + 1])
    int8 guide_bits[sx::kMaxTables];
    Oid ball_type;                     // found to be simhash_ball (simhash_reads_argument)
    // the entries follow, then their summaries, then the buffer each child
    // was last read into, then the guides
};
static_assert(sizeof(SimhashCache) % alignof(SimhashDirEntry) == 0, "directory entries misaligned");
static_assert(sizeof(SimhashDirEntry) % alignof(SimhashDirSummary) == 0, "directory summaries misaligned");
static inline SimhashDirEntry *simhash_cache_entries(SimhashCache *cache) {
    return reinterpret_cast<SimhashDirEntry *>(cache + 1);
}
static inline SimhashDirSummary *simhash_cache_summaries(SimhashCache *cache) {
    return reinterpret_cast<SimhashDirSummary *>(simhash_cache_entries(cache) + cache->total);
}
static inline Buffer *simhash_cache_recent(SimhashCache *cache) {
    return reinterpret_cast<Buffer *>(simhash_cache_summaries(cache) + cache->total);
}
static inline uint32 *simhash_cache_guides(SimhashCache *cache) {
    return reinterpret_cast<uint32 *>(simhash_cache_recent(cache) + cache->total);
}
struct SimhashDirectory {
    const SimhashDirEntry *entries;  // sorted by low
    const SimhashDirSummary *summaries;
    Buffer *recent;                  // the buffer entries[i].child was last read into, or InvalidBuffer
    uint32 n;                        // 0: none, descend from the root
    int child_level;
    const uint32 *guide;             // a radix guide to the lows' keys (src/core/radix_guide.hpp)
    int guide_bits;
};

// index_directory.cpp
// The cache with a directory, read now if there is none yet and the scans
// have walked enough from the roots, or if it went stale; without one, scans
// walk from the roots. Valid until the next call (it may be replaced) or a
// relcache invalidation.
SimhashCache *simhash_cache(Relation index);
// Internal pages a session's scans read from the roots before its first
// directory read pays: what that read reads, for an index of `pages` pages.
uint32 simhash_directory_deferral(BlockNumber pages, int tables);
SimhashDirectory simhash_directory(SimhashCache *cache, int table);
// The entry whose child's range holds `key` (entry 0 if key is below all).
size_t simhash_directory_find(const SimhashDirectory &dir, const sx::EntryKey &key);

// index_pages.cpp
void simhash_init_page(Page page, uint16 flags, uint16 level, uint16 table);
SimhashMeta simhash_read_meta(Relation index);
sx::Layout simhash_layout(const SimhashMeta &meta);
void simhash_meta_set_layout(SimhashMeta *meta, const sx::Layout &layout);
Buffer simhash_new_buffer(Relation index);
void simhash_tree_insert(Relation index, const SimhashMeta &meta, int table, const sx::EntryKey &key);
// A downlink to `page` (block `blk`, low bound `low`) whose summary is exactly
// that of the page's keys: a leaf's header, or an internal page's downlinks
// folded (the build's pages, and the root split's two new ones).
sx::InternalEntry simhash_downlink(Page page, const sx::EntryKey &low, BlockNumber blk);
// Pins and share-locks the leaf whose range holds `key` (moving right as
// needed). `inserting`: first weakens the key summary of each downlink on the
// way that does not allow `key` yet, locking that internal page exclusively.
Buffer simhash_find_leaf(Relation index, BlockNumber root, const sx::EntryKey &key, bool inserting);
// Releases locked `buf` for its right sibling, locked in `mode`. Key ranges
// only increase along right-links (a page's high key is above its low key and
// is its sibling's low key): a chain that breaks this is corruption (XX002),
// not a walk that never ends.
Buffer simhash_step_right(Relation index, Buffer buf, int mode);
pg_attribute_noreturn() void simhash_bad_right_link(Relation index, BlockNumber blk);
// A downlink of table `table` to `blk` reached a page that is not one level
// below its parent in that table, or does not start at the downlink's key.
pg_attribute_noreturn() void simhash_not_the_child(Relation index, int table, BlockNumber blk);
// What keeps `page` from being read as a tree page at all, or nullptr: ours,
// a leaf or an internal page by its flags and level, its entry area inside the
// page (whole internal entries), a leaf's packed header consistent with its
// length. Constant time.
const char *simhash_page_shape_problem(Page page);
// Raises XX002 when locked `buf` has a shape problem. Every page reached by a
// link (root, downlink, right-link) is checked before its bytes are trusted,
// so that damage is reported, not read past; the full invariants are
// simhash_index_check's, which starts from the same test.
void simhash_check_page(Relation index, Buffer buf);
// The layout the reloptions ask for, or for `rows` rows by the default rule.
sx::Layout simhash_layout_option(Relation index, double rows);

// index_validate.cpp
// An operator class that fails amvalidate (only a superuser can create one)
// can give the index a column or scan arguments of other types: they are
// refused (42P17), never read as fingerprints or balls.
// Raises unless the index column is a simhash64.
void simhash_check_column_type(Relation index);
// Whether `type` is what an argument of `strategy` is read as: simhash_ball
// for <@, the column's simhash64 for = and <->.
bool simhash_reads_argument(Relation index, StrategyNumber strategy, Oid type);

// index_append_wal.cpp: appends `key` to exclusively locked leaf `buf` (which has room), WAL-logged.
void simhash_leaf_append(Relation index, Buffer buf, const sx::EntryKey &key);

// Build sub-phases shown in pg_stat_progress_create_index.
constexpr int64 kPhaseScanHeap = 2;   // PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE is 1
constexpr int64 kPhaseWriteTables = 3;

// index_options.cpp
void simhash_register_reloptions();
extern "C" bytea *simhash_amoptions(Datum reloptions, bool validate);

// The settings for tests (src/pg/test_hooks.cpp), defined at load:
// simhash.test_pause_lock, and the pause itself, inline so that an insert
// pays one test of an integer when no test set it; simhash.test_probe_always.
void simhash_define_test_hooks();
extern int simhash_test_pause_lock;
extern bool simhash_test_probe_always;
void simhash_test_wait();
inline void simhash_test_pause() {
    if (unlikely(simhash_test_pause_lock != 0)) simhash_test_wait();
}

// ORDER BY fp <-> q returns the rows beyond max_distance in batches that
// start at this many and double, each a sweep of one table (next_batch in
// index_scan.cpp); index_cost.cpp prices the sweeps.
constexpr Size kFirstSweepBatch = 1024;

// Callbacks, one file per group.
extern "C" {
IndexBuildResult *simhash_ambuild(Relation heap, Relation index, IndexInfo *info);
void simhash_ambuildempty(Relation index);
bool simhash_aminsert(Relation index, Datum *values, bool *isnull, ItemPointer tid, Relation heap,
                      IndexUniqueCheck check, bool indexUnchanged, IndexInfo *info);
IndexScanDesc simhash_ambeginscan(Relation index, int nkeys, int norderbys);
void simhash_amrescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys);
bool simhash_amgettuple(IndexScanDesc scan, ScanDirection dir);
int64 simhash_amgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
void simhash_amendscan(IndexScanDesc scan);
IndexBulkDeleteResult *simhash_ambulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                                            IndexBulkDeleteCallback callback, void *state);
IndexBulkDeleteResult *simhash_amvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats);
void simhash_amcostestimate(PlannerInfo *root, IndexPath *path, double loop_count, Cost *startup, Cost *total,
                            Selectivity *selectivity, double *correlation, double *pages);
bool simhash_amvalidate(Oid opclassoid);
}
