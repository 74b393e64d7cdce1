// The directory: a backend-local copy of one upper level of each table's
// tree, kept with the metapage in rd_amcache, so that a probe goes straight to
// the leaf (or the lowest page) that holds its key range instead of reading
// the root and every internal level again: a k = 3 probe at 1M rows read 12
// pages (3 per table), it now reads 4.
//
// A copy goes stale as pages split, and it stays correct: pages are never
// deleted, a page's low bound never changes (a split moves the upper half of
// its keys to a new right sibling) and only the root changes level. So every
// key in [low(i), low(i + 1)) of two consecutive copied entries is, at any
// later time, in page child(i) or in a page reached from it by right-links
// before child(i + 1): the walk follows right-links up to that bound, as it
// does for a child that split after its parent was read (Lehman & Yao). What
// staleness costs is those right-links: the scans count them and the
// directory is read again after kStaleHops of them. It is also dropped with
// the relcache entry (relcache invalidation frees rd_amcache: REINDEX,
// TRUNCATE and the like give the index a new relfilenode).
//
// A probe finds its range's entries through a radix guide to the lows' keys
// (about two entries per slot), not a binary search of the whole table's
// entries: at 10M rows a table has ~12,000 of them, and a k = 3 query's 16
// binary searches missed the CPU cache at most of their halvings (9% of the
// query's samples).
//
// A session's first scans walk from the roots instead: at 10M rows the read
// (~240 internal pages, ~47,500 entries copied twice, 2.3 MB of new memory
// to fault in) took 2.9-3.4 ms of a first query's 5-6, where the B-tree's
// first lookup took 1.6-1.8, and a session that queries once never earns it
// back. It is read once the scans have read as many internal pages from the
// roots as it reads (a descent reads one or two per table), so a session
// pays at most about twice the cheaper of the two (ski rental); an index of
// a few hundred pages, whose directory is a table's root or little more,
// reads it at the first scan.
//
// The copies of the downlinks' key summaries go stale in a way no right-link
// shows (an insert weakens a summary in place), so scans take them only as a
// hint of where reading the current ones would pay (first_children).
#include "index.hpp"

#include <algorithm>

#include "radix_guide.hpp"

extern "C" {
#include "miscadmin.h"
#include "utils/memutils.h"
}

namespace {

// Entries cached per index, over all tables (at most 48 bytes each with
// their summaries, buffers and guide slots, 3 MB at most): the leaf level of a K = 3 index
// fits up to about 13M rows (47,500 leaves at 10M); above that a higher level
// is cached and a probe reads one internal page more per table, which at 10M
// cost 0.4 us of a 10 us probe.
constexpr uint32 kDirectoryBudget = 65536;

// Right-links followed from directory children (and root descents of tables
// that had no directory) before the directory is read again: each one is a
// split since the copy, and the copy of a 1M-row index costs about as much
// as a few dozen probes.
constexpr uint32 kStaleHops = 64;

// At most 2^15 guide slots per table: the budget's 65,536 entries in one
// table, two to a slot.
constexpr int kGuideBits = 15;

struct Entries {
    sx::InternalEntry *v;
    uint32 n, cap;
};

void push(Entries *e, const sx::InternalEntry &x) {
    if (e->n == e->cap) {
        e->cap = e->cap == 0 ? 64 : e->cap * 2;
        e->v = static_cast<sx::InternalEntry *>(e->v ? repalloc(e->v, e->cap * sizeof(x)) : palloc(e->cap * sizeof(x)));
    }
    e->v[e->n++] = x;
}

pg_attribute_noreturn() void bad_page(Relation index, int table, BlockNumber blk) {
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                    errmsg("simhash index \"%s\" is corrupt: table %d, block %u is not the internal page its "
                           "level's right-links lead to",
                           RelationGetRelationName(index), table, blk)));
}

// Appends the entries of every page of `*level` from `blk` rightwards; false
// (and nothing kept) when there are more than `budget` of them. A *level of
// 0 asks for the level of the page at `blk`, a root, which a root split
// raises at any time: it is read under the same lock as the entries and
// stored in *level (which stays 0, with no entries, for a leaf root).
bool read_level(Relation index, int table, BlockNumber blk, int *level, uint32 budget, Entries *out) {
    out->n = 0;
    sx::EntryKey high{0, 0, 0};
    for (bool first = true; blk != InvalidBlockNumber; first = false) {
        CHECK_FOR_INTERRUPTS();
        Buffer buf = ReadBuffer(index, blk);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        simhash_check_page(index, buf);
        Page page = BufferGetPage(buf);
        SimhashPageOpaque *op = page_opaque(page);
        if (*level == 0) {
            if (op->flags & kPageLeaf) {
                UnlockReleaseBuffer(buf);
                return true;
            }
            *level = op->level;
        }
        if (!(op->flags & kPageInternal) || op->level != *level || op->level == 0 || op->table != table)
            bad_page(index, table, blk);
        // Key ranges only increase along right-links (a broken chain could loop).
        if ((!first && sx::compare_keys(page_low(page), high) != 0) || !page_range_ok(page)) bad_page(index, table, blk);
        high = page_high(page);
        size_t n = internal_count(page);
        if (out->n + n > budget) {
            UnlockReleaseBuffer(buf);
            return false;
        }
        for (size_t i = 0; i < n; ++i) push(out, sx::internal_get(page_area(page), i));
        blk = op->right;
        UnlockReleaseBuffer(buf);
    }
    return true;
}

// The lowest level of table `table` whose entries fit `budget`, into `out`;
// returns the level of the pages they point to, or -1 (nothing cached) when
// the root is a leaf.
int read_table(Relation index, const SimhashMeta &meta, int table, uint32 budget, Entries *out) {
    int level = 0;
    if (!read_level(index, table, meta.roots[table], &level, budget, out) || level == 0) return -1;
    Entries below{nullptr, 0, 0};
    while (level > 1) {
        int lower = level - 1;
        if (!read_level(index, table, out->v[0].child, &lower, budget, &below)) break;
        std::swap(*out, below);
        level = lower;
    }
    if (below.v) pfree(below.v);
    return level - 1;
}

SimhashCache *load(Relation index) {
    SimhashMeta meta = simhash_read_meta(index);
    Oid ball_type = static_cast<SimhashCache *>(index->rd_amcache)->ball_type;
    Entries tables[sx::kMaxTables];
    int child_level[sx::kMaxTables], guide_bits[sx::kMaxTables];
    uint32 total = 0, guide_slots = 0;
    for (int t = 0; t < meta.tables; ++t) {
        tables[t] = {nullptr, 0, 0};
        child_level[t] = read_table(index, meta, t, kDirectoryBudget / meta.tables, &tables[t]);
        if (child_level[t] < 0) tables[t].n = 0;
        total += tables[t].n;
        guide_bits[t] = simhash::radix_guide_bits((tables[t].n + 1) / 2, kGuideBits);
        guide_slots += (uint32{1} << guide_bits[t]) + 1;
    }
    Size size = sizeof(SimhashCache) + total * (sizeof(SimhashDirEntry) + sizeof(SimhashDirSummary) + sizeof(Buffer)) +
                guide_slots * sizeof(uint32);
    // (Zeroed: every recent buffer starts as InvalidBuffer.)
    SimhashCache *cache = static_cast<SimhashCache *>(MemoryContextAllocZero(index->rd_indexcxt, size));
    cache->meta = meta;
    cache->ball_type = ball_type;
    cache->loaded = true;
    cache->total = total;
    SimhashDirEntry *entries = simhash_cache_entries(cache);
    SimhashDirSummary *summaries = simhash_cache_summaries(cache);
    uint32 *guides = simhash_cache_guides(cache);
    uint32 at = 0, guide_at = 0;
    for (int t = 0; t < meta.tables; ++t) {
        cache->start[t] = at;
        cache->child_level[t] = static_cast<int16>(child_level[t]);
        const sx::InternalEntry *v = tables[t].v;
        for (uint32 i = 0; i < tables[t].n; ++i, ++at) {
            entries[at] = {v[i].low, v[i].child};
            summaries[at] = {v[i].keys_and, v[i].keys_or};
        }
        cache->guide_start[t] = guide_at;
        cache->guide_bits[t] = static_cast<int8>(guide_bits[t]);
        simhash::build_radix_guide(tables[t].n, guide_bits[t], [v](size_t i) { return v[i].low.key; }, guides + guide_at);
        guide_at += (uint32{1} << guide_bits[t]) + 1;
        if (v) pfree(tables[t].v);
    }
    cache->start[meta.tables] = at;
    cache->guide_start[meta.tables] = guide_at;
    // Nothing keeps a pointer into the old cache across calls that could
    // reach here (scans look it up at the start of each pass).
    if (index->rd_amcache) pfree(index->rd_amcache);
    index->rd_amcache = cache;
    return cache;
}

}  // namespace

// Internal pages at the build's fill hold about this many downlinks.
constexpr uint32 kDownlinksPerInternalPage = 200;

uint32 simhash_directory_deferral(BlockNumber pages, int tables) {
    uint32 reads = pages / kDownlinksPerInternalPage;
    return reads > static_cast<uint32>(tables) ? reads - tables : 0;
}

SimhashCache *simhash_cache(Relation index) {
    simhash_read_meta(index);
    SimhashCache *cache = static_cast<SimhashCache *>(index->rd_amcache);
    if (cache->loaded ? cache->hops < kStaleHops : cache->descended < cache->read_directory_after) return cache;
    return load(index);
}

SimhashDirectory simhash_directory(SimhashCache *cache, int table) {
    if (!cache->loaded || table >= cache->meta.tables || cache->child_level[table] < 0)
        return {nullptr, nullptr, nullptr, 0, -1, nullptr, 0};
    uint32 at = cache->start[table];
    return {simhash_cache_entries(cache) + at, simhash_cache_summaries(cache) + at, simhash_cache_recent(cache) + at,
            cache->start[table + 1] - at, cache->child_level[table],
            simhash_cache_guides(cache) + cache->guide_start[table], cache->guide_bits[table]};
}

size_t simhash_directory_find(const SimhashDirectory &dir, const sx::EntryKey &key) {
    if (dir.n == 0) return 0;  // (a table without a directory has no guide either)
    // Entries before the span have smaller keys, so lows below `key`; entries
    // from its end have larger keys: the last low <= key is inside or just
    // before it.
    const simhash::GuideSpan span = simhash::radix_guide_span(dir.guide, dir.guide_bits, key.key);
    const SimhashDirEntry *it = std::upper_bound(dir.entries + span.first, dir.entries + span.last, key,
                                                 [](const sx::EntryKey &k, const SimhashDirEntry &e) {
                                                     return sx::key_less(k, e.low);
                                                 });
    return it == dir.entries ? 0 : static_cast<size_t>(it - dir.entries) - 1;
}
