// Scans of the simhash index: bitmap, plain and index-only, and ORDER BY
// fp <-> q. Every candidate's full 64-bit distance is checked here, so the
// executor never rechecks; hits are de-duplicated by TID (a row within k
// usually shares a prefix in several tables, and MVCC scans collect it from
// the first of them only: found_earlier).
//
// A scan collects its hits (TID, fingerprint, distance, and the leaf each
// came from) on the first call; a bitmap scan, their TIDs only, into its
// bitmap; a plain scan of qualifiers under an MVCC snapshot, in batches
// (next_stream_batch); ORDER BY alone or under a ball around its point, in
// batches of the nearest (next_batch). This is safe without holding pins
// for MVCC snapshots: a heap slot VACUUM frees and a later insert reuses
// holds a tuple our snapshot cannot see. Index-only scans (and non-MVCC
// scans) need more, see recheck_entry.
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

#include "hamming.hpp"
#include "simhash_ball.hpp"
#include "tid_sort.hpp"

namespace {

struct Hit {
    ItemPointerData tid;
    int16 distance;  // to the ORDER BY argument, 0 without one
    bool null_fp;    // a row of the NULL list
    BlockNumber leaf;  // where the entry was found (a leaf of one table) and
    uint64 key;        // its table key, for the index-only check (recheck_entry)
    uint64 fp;
    // (distance, block, offset) as one integer: the order of ORDER BY results,
    // compared in one instruction by the bounded heap a sweep pushes ~10,000
    // entries through.
    uint64 rank;
};

uint64 rank_of(int distance, const ItemPointerData &tid) {
    return (static_cast<uint64>(distance) << 48) |
           (static_cast<uint64>(ItemPointerGetBlockNumberNoCheck(&tid)) << 16) | ItemPointerGetOffsetNumberNoCheck(&tid);
}
constexpr uint64 kTidBits = sx::kTidSortBits;  // a rank's TID: the bits sort_tids sorts on

struct Ball {
    uint64 center;
    int radius;
};

// ORDER BY without a qualifier, or under a ball around its point, returns its
// rows in batches, each the `batch` nearest entries after the last one
// returned, kept in a bounded max-heap: first from the probes, up to
// max_distance (or the ball's radius), then from sweeps of table 0 (up to the
// ball's). So a LIMIT 10 among thousands of near-duplicates reads their keys
// but collects few of them (the heap's farthest entry narrows the radius),
// and the first rows beyond max_distance come after one sweep; each batch
// doubles, and a sweep's re-reads the table.
constexpr Size kFirstProbeBatch = 128;

// A streaming scan's first batch pauses at the end of the leaf that brings it
// to kFirstStreamBatch hits: a LIMIT 1 or an EXISTS reads the first page of
// each table's probe and a leaf or so. Each later batch holds what work_mem
// does (at least kMinStreamBatch hits, 2.6 MB), as the executor reads a heap
// page holding rows of two batches twice: a first batch of 64 among 2,000
// clustered rows costs ~30 us, ~10%, and batches of 65,536 made a plain scan
// of 3.5M rows spread over a 10M-row table 1.7-2.4 times as long (the planner
// takes a bitmap scan there).
constexpr Size kFirstStreamBatch = 64;
constexpr Size kMinStreamBatch = Size{1} << 16;

struct Pass;

struct ScanState {
    MemoryContext hits_cxt;
    IndexTuple itup;  // index-only scans: the tuple returned last (in hits_cxt)
    Ball *balls;
    int nballs;
    bool impossible;  // a NULL argument: nothing matches
    bool ordered;
    bool order_null;
    uint64 order_q;
    // ORDER BY fp <-> a, fp <-> b, ...: ties of the first distance are broken
    // by the next ones, so the scan collects every row its qualifiers allow
    // and sorts them whole (batches would cut through the ties).
    int norderbys;
    uint64 *order_args;        // every ORDER BY argument; order_q is the first
    bool *order_args_null;
    bool started;
    bool probing;     // ORDER BY only: the next batch comes from the probes
    bool exhausted;   // no more batches once the hits run out
    bool nulls_left;  // then the NULL rows (distance NULL sorts last)
    int max_radius;   // ORDER BY batches: no farther (a qualifier's ball around the ORDER BY point)
    Hit after;        // batches keep only (distance, TID) greater than this
    Size batch;       // > 0 while filling a bounded heap
    Hit *hits;
    Size n, cap, pos;
    bool recheck;     // index-only or non-MVCC: recheck_entry before returning
    bool mvcc;        // an MVCC snapshot: each row it sees is in every table (found_earlier)
    Snapshot snapshot;  // the scan's, for refuse_if_too_old
    Buffer pinned;    // the leaf of the entry returned last, or InvalidBuffer
    Size verified_end;  // hits below it were found in `pinned`, pinned ever since
    // A bitmap scan keeps no hits: their TIDs (as sort_tids keys) go to its
    // bitmap in chunks (add_tids_to_bitmap).
    TIDBitmap *tbm;
    uint64 *tid_keys;
    Size nkeys, keys_cap;
    int64 ntids;  // rows added to the bitmap
    // A plain or index-only scan of qualifiers under an MVCC snapshot, not
    // ordered, streams its hits (next_stream_batch): its walk pauses at a
    // leaf's end once the batch holds pause_at hits, and resumes from that
    // leaf's high key. A LIMIT stops it early, and it holds one batch.
    bool streaming;
    sx::Layout layout;     // what the passes point to
    Pass *passes;
    int npasses;
    int pass;              // the first pass not yet finished
    bool paused;           // passes[pass] stopped short of its range's end (Pass::from)
    Size pause_at;         // 0: never pause
};

// Lambdas, not functions: std::sort and the heap algorithms inline them,
// where through a function pointer each comparison was a call.
constexpr auto tid_less = [](const Hit &a, const Hit &b) { return (a.rank & kTidBits) < (b.rank & kTidBits); };
constexpr auto distance_less = [](const Hit &a, const Hit &b) { return a.rank < b.rank; };

// Puts h in place of the farthest entry of the full max-heap: one sift down
// instead of a pop and a push.
void replace_top(Hit *heap, Size n, const Hit &h) {
    Size i = 0;
    for (Size c = 1; c < n; c = 2 * i + 1) {
        if (c + 1 < n && heap[c].rank < heap[c + 1].rank) c++;
        if (heap[c].rank < h.rank) break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = h;
}

void add_hit(ScanState *st, const sx::EntryKey &e, BlockNumber leaf, uint64 fp, int distance, bool null_fp = false) {
    Hit h;
    entry_tid(e, &h.tid);
    if (st->tbm) {
        if (st->nkeys == st->keys_cap) {
            st->keys_cap *= 2;
            st->tid_keys = static_cast<uint64 *>(repalloc_huge(st->tid_keys, st->keys_cap * sizeof(uint64)));
        }
        st->tid_keys[st->nkeys++] = rank_of(0, h.tid);
        return;
    }
    h.leaf = leaf;
    h.key = e.key;
    h.fp = fp;
    h.distance = static_cast<int16>(distance);
    h.null_fp = null_fp;
    h.rank = rank_of(distance, h.tid);
    if (st->batch > 0) {
        if (!distance_less(st->after, h)) return;
        if (st->n == st->batch) {
            if (distance_less(h, st->hits[0])) replace_top(st->hits, st->n, h);
            return;
        }
        st->hits[st->n++] = h;
        std::push_heap(st->hits, st->hits + st->n, distance_less);
        return;
    }
    if (st->n == st->cap) {
        st->cap *= 2;
        st->hits = static_cast<Hit *>(repalloc_huge(st->hits, st->cap * sizeof(Hit)));
    }
    st->hits[st->n++] = h;
}

// A bitmap scan's hits go to its bitmap each time a chunk of them is found,
// and at the end: sorted by TID, so that each heap block's bitmap page is
// looked up once for its run of rows, not once per row. Besides the bitmap,
// which work_mem bounds (lossy pages) however many rows match, the scan then
// holds a chunk and one leaf's hits; collecting them all first took 40 bytes
// per row. A non-MVCC scan adds its hits at the end only: it may find a row
// in two tables, and the count returned (EXPLAIN's rows) is of rows.
constexpr Size kBitmapChunk = Size{1} << 16;

// Sorts n sort_tids keys in place (with a scratch array of as many).
void sort_tid_keys(uint64 *keys, Size n) {
    uint64 *scratch = static_cast<uint64 *>(MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * Max(n, 1)));
    sx::sort_tids(keys, scratch, n, sx::kTidKeyBits, [] { CHECK_FOR_INTERRUPTS(); });
    pfree(scratch);
}

void add_tids_to_bitmap(ScanState *st) {
    uint64 *keys = st->tid_keys;
    sort_tid_keys(keys, st->nkeys);
    Size n = std::unique(keys, keys + st->nkeys) - keys;
    ItemPointerData *tids = static_cast<ItemPointerData *>(palloc(sizeof(ItemPointerData) * Min(Max(n, 1), kBitmapChunk)));
    for (Size from = 0; from < n; from += kBitmapChunk) {
        Size m = Min(n - from, kBitmapChunk);
        for (Size i = 0; i < m; ++i)
            ItemPointerSet(&tids[i], static_cast<BlockNumber>(keys[from + i] >> 16), static_cast<OffsetNumber>(keys[from + i]));
        tbm_add_tuples(st->tbm, tids, static_cast<int>(m), false);
        CHECK_FOR_INTERRUPTS();
    }
    pfree(tids);
    st->ntids += static_cast<int64>(n);
    st->nkeys = 0;
}

// What one pass over a table looks for: keys in [lo, hi], and fingerprints
// within `radius` of `center` (the table key `qkey`), which also prunes every
// subtree whose keys' common prefix is already too far from qkey (a run of
// identical fingerprints is one subtree: skipped in one test unless it
// matches). Hits must also be inside every ball and, for ORDER BY passes,
// at a distance to the ORDER BY point in (above, upto].
struct Pass {
    Relation index;
    const sx::Layout *layout;
    int table;
    uint64 lo, hi;
    uint64 qkey;
    int radius;
    int above, upto;
    uint32 hops;  // right-links followed: splits the parent or directory did not know of
    // A streaming pass that paused (ScanState::paused) resumes at `from`, the
    // high key of the last leaf it read. Splits add leaf boundaries and
    // nothing removes one, so the walk descends to the leaf that begins
    // there, or to one left of it that a split made (through a stale
    // directory): read no leaf whose high key is `from` or below.
    bool resumed = false;
    sx::EntryKey from{0, 0, 0};
    // The prefixes of the probe passes of the same collect() run before this
    // one (see found_earlier), as (mask, prefix) pairs of bits of this pass's
    // keys: the rows such a pass reports are those whose key here has the
    // prefix under the mask. Translated once per collect() (each ORDER BY
    // batch's too), as a walk tests them for every subtree and leaf it reads.
    const uint64 *earlier = nullptr;
    int nearlier = 0;
    // This probe's prefix as fingerprint bits, to translate for later passes.
    uint64 fp_mask = 0, fp_prefix = 0;
    SimhashDirectory dir{nullptr, nullptr, nullptr, 0, -1, nullptr, 0};  // the table's, set by run_passes
};

// The least entry key a pass may report.
sx::EntryKey first_key(const Pass &p) { return p.resumed ? p.from : sx::EntryKey{p.lo, 0, 0}; }

// Whether an earlier probe pass of the same scan reports the row of `key`:
// its key there lies in that pass's prefix range. A row within k of the
// query shares a prefix with it in several tables (most near-duplicates in
// three of four), so without this every later pass would collect it again
// for finish_hits to drop. Exact only under an MVCC snapshot: a row the
// snapshot sees was committed before it, so its entries were in every table
// before the scan began (a dirty snapshot can see an insert that has reached
// only some tables, hence `earlier` is set for MVCC scans only).
bool found_earlier(const Pass &p, uint64 key) {
    for (int u = 0; u < p.nearlier; ++u)
        if (((key ^ p.earlier[2 * u + 1]) & p.earlier[2 * u]) == 0) return true;
    return false;
}

// The key bits every key in [a, b] has: their common prefix.
uint64 shared_bits(uint64 a, uint64 b) {
    int common = a == b ? 64 : __builtin_clzll(a ^ b);
    return common == 0 ? 0 : ~uint64{0} << (64 - common);
}

// What an earlier probe pass of the same scan tells of the keys of a range
// that share the bits `shared` of key a: kAllFoundEarlier when those bits
// fix an earlier probe's whole prefix to the query's (every such key is
// found_earlier), else how many bits, outside the shared ones, each key the
// pass must report still differs from the query in. A key this pass reports
// is in no earlier probe's range, so it differs from the query somewhere in
// each earlier prefix; where the shared bits show no difference there, it is
// in the prefix's other bits. Prefixes of different tables may overlap (two
// of five blocks), so only those whose other bits are disjoint count one
// each. Where many rows share bits that lead one table's keys and trail
// another's, the second probe's range is as wide as the first's, but its
// subtrees lie inside the first's prefix, or differ from the query in it.
constexpr int kAllFoundEarlier = -1;
int earlier_differences(const Pass &p, uint64 a, uint64 shared) {
    uint64 counted = 0;
    int differences = 0;
    for (int u = 0; u < p.nearlier; ++u) {
        uint64 mask = p.earlier[2 * u], prefix = p.earlier[2 * u + 1];
        if (((a ^ prefix) & mask & shared) != 0) continue;  // a shared bit differs: counted already
        uint64 open = mask & ~shared;
        if (open == 0) return kAllFoundEarlier;
        if ((open & counted) == 0) {
            counted |= open;
            differences++;
        }
    }
    return differences;
}

// The radius a key must be within: the pass's, or, once a batch's bounded
// heap is full, the distance of its farthest entry (nothing farther can enter).
int current_radius(const Pass &p, const ScanState *st) {
    if (st->batch > 0 && st->n == st->batch && st->hits[0].distance < p.radius) return st->hits[0].distance;
    return p.radius;
}

// True when no key of a range whose keys share the bits `shared` of key a
// can be within `radius` of qkey and left to this pass.
bool prunable(const Pass &p, int radius, uint64 a, uint64 shared) {
    int floor = __builtin_popcountll((a ^ p.qkey) & shared);
    if (floor > radius) return true;
    int earlier = earlier_differences(p, a, shared);
    return earlier == kAllFoundEarlier || floor + earlier > radius;
}

void leaf_hits(const Pass &p, BlockNumber blk, Page page, ScanState *st) {
    sx::Leaf leaf = page_leaf(page);
    if (p.table == p.layout->tables) {  // the NULL list
        for (size_t i = 0; i < leaf.size(); ++i) add_hit(st, leaf.get(i), blk, 0, 0, true);
        return;
    }
    // The radius only shrinks while the leaf is read: filter with today's,
    // then check each of the (few) candidates against the current one. The
    // bits every key of the leaf shares rule it out as a subtree's would.
    int radius = current_radius(p, st);
    const sx::PackedHeader &h = leaf.header();
    uint16 near[kMaxLeafEntries];
    size_t m = leaf.size() > 0 && !prunable(p, radius, h.keys_and, sx::summary_shared_bits(h.keys_and, h.keys_or))
                   ? leaf.near(p.lo, p.hi, p.qkey, radius, near)
                   : 0;
    size_t cursor = 0;
    // The checks of a key hold for the next entries with the same key (a run
    // of identical fingerprints), so they are made once per run of the segment.
    bool have_key = false, key_ok = false;
    uint64 key = 0, fp = 0;
    int d = 0;
    for (size_t j = 0; j < m; ++j) {
        sx::EntryKey e = leaf.get(near[j], &cursor);
        if (!have_key || e.key != key) {
            have_key = true;
            key = e.key;
            fp = sx::table_fingerprint(*p.layout, p.table, e.key);
            key_ok = !found_earlier(p, e.key);
            for (int b = 0; b < st->nballs && key_ok; ++b)
                key_ok = simhash::hamming_distance(fp, st->balls[b].center) <= st->balls[b].radius;
            if (key_ok) {
                d = st->ordered && !st->order_null ? simhash::hamming_distance(fp, st->order_q) : 0;
                key_ok = d > p.above && d <= p.upto;
            }
        }
        // The radius shrinks as a bounded heap fills: checked per entry.
        if (key_ok && __builtin_popcountll(e.key ^ p.qkey) <= current_radius(p, st)) add_hit(st, e, blk, fp, d);
    }
}

// A page to visit, with what its parent (an internal page or the directory)
// says of it: its level and low bound (level -1 for a root: unchecked), and
// the bound of its range, up to which right-links are followed.
struct Child {
    BlockNumber block;
    int level;
    sx::EntryKey low;
    bool has_high;
    sx::EntryKey high;
    Buffer *recent;  // a directory child: the buffer it was last read into
    // The parent's summary of the child's keys (sx::InternalEntry). Not the
    // directory's: its copies are not kept as inserts weaken the summaries.
    uint64 keys_and = 0, keys_or = ~uint64{0};
};

// Pins c.block, through the buffer the directory remembers for it while that
// still holds the page: ReadRecentBuffer checks the buffer's tag instead of
// looking the page up in the buffer mapping table, whose entries a probe at
// 10M rows rarely finds in the CPU cache.
Buffer read_child(Relation index, const Child &c) {
    if (c.recent != nullptr && *c.recent != InvalidBuffer &&
        ReadRecentBuffer(index->rd_node, MAIN_FORKNUM, c.block, *c.recent)) {
        // (ReadRecentBuffer counts the hit for EXPLAIN only, not pg_statio.)
        pgstat_count_buffer_read(index);
        pgstat_count_buffer_hit(index);
        return *c.recent;
    }
    Buffer buf = ReadBuffer(index, c.block);
    if (c.recent != nullptr && !RelationUsesLocalBuffers(index)) *c.recent = buf;
    return buf;
}

// The bits a child's keys share are those of its range's common prefix, and
// those its summary says every key has, or none has.
bool child_prunable(const Pass &p, const ScanState *st, const Child &c) {
    uint64 last = c.has_high ? c.high.key : ~uint64{0};
    if (last < p.lo || c.low.key > p.hi) return true;
    uint64 in_range = shared_bits(c.low.key, last);
    uint64 in_summary = sx::summary_shared_bits(c.keys_and, c.keys_or) & ~in_range;
    return prunable(p, current_radius(p, st), (c.low.key & in_range) | (c.keys_and & in_summary), in_range | in_summary);
}

// Under old_snapshot_threshold VACUUM may remove entries of rows a snapshot
// older than the threshold still sees; a page changed since that snapshot was
// taken may have lost some (or, above the leaves, a summary may have been
// narrowed to the entries left), so reading it ends the scan with "snapshot
// too old", as B-tree does, instead of an answer short of those rows.
void refuse_if_too_old(const ScanState *st, Relation index, Page page) {
    TestForOldSnapshot(st->snapshot, index, page);
}

void visit_children(Pass &p, const Child *children, size_t n, ScanState *st, Buffer first);

// Visits page c.block and, following right-links, its right siblings up to the
// bound the parent promised (a sibling split off after the parent was read).
// One page lock at a time (Lehman-Yao): the children of an internal page are
// copied, the page released, then each child visited. `pinned` is c.block
// already pinned by the caller, or InvalidBuffer.
void visit(Pass &p, const Child &c, ScanState *st, Buffer pinned) {
    BlockNumber blk = c.block, left = InvalidBlockNumber;
    sx::EntryKey high{0, 0, 0};
    for (bool first = true;; first = false) {
        CHECK_FOR_INTERRUPTS();
        Buffer buf = pinned != InvalidBuffer ? pinned : ReadBuffer(p.index, blk);
        pinned = InvalidBuffer;
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        simhash_check_page(p.index, buf);
        Page page = BufferGetPage(buf);
        refuse_if_too_old(st, p.index, page);
        SimhashPageOpaque *op = page_opaque(page);
        if (first && c.level >= 0 && !page_is_child(page, p.table, c.level, c.low))
            simhash_not_the_child(p.index, p.table, blk);
        // (See simhash_step_right: a broken chain must not be walked forever.)
        if (!first && sx::compare_keys(page_low(page), high) != 0) simhash_bad_right_link(p.index, left);
        bool has_high = op->has_high != 0;
        high = page_high(page);
        if (!page_range_ok(page)) simhash_bad_right_link(p.index, blk);
        BlockNumber right = op->right;
        Child *children = nullptr;
        size_t nchildren = 0;
        // (A leaf whose keys all lie below the pass's first key, left of its
        // range or of where it resumed, is only passed through.)
        bool read_leaf = (op->flags & kPageLeaf) && (!has_high || sx::key_less(first_key(p), high));
        if (read_leaf) {
            leaf_hits(p, blk, page, st);
        } else if (!(op->flags & kPageLeaf)) {
            // Children are sorted by low bound: a probe's narrow range starts
            // at the child holding first_key(p) and ends at the first child past hi.
            const uint8 *area = page_area(page);
            size_t n = internal_count(page);
            size_t first_child = sx::internal_find(area, n, first_key(p));
            size_t end = first_child;
            while (end < n && sx::internal_low(area, end).key <= p.hi) end++;
            children = static_cast<Child *>(palloc(sizeof(Child) * (end > first_child ? end - first_child : 1)));
            // Children the directory lists too (a wide range walked from
            // the root) are pinned through the buffers it remembers.
            bool listed = p.dir.n > 0 && op->level - 1 == p.dir.child_level && end > first_child;
            size_t d = listed ? simhash_directory_find(p.dir, sx::internal_low(area, first_child)) : 0;
            for (size_t i = first_child; i < end; ++i) {
                sx::InternalEntry e = sx::internal_get(area, i);
                bool child_has_high = i + 1 < n || has_high;
                Child ch{e.child, op->level - 1, e.low, child_has_high,
                         i + 1 < n ? sx::internal_low(area, i + 1) : high, nullptr, e.keys_and, e.keys_or};
                if (child_prunable(p, st, ch)) continue;
                if (listed) {
                    while (d < p.dir.n && sx::key_less(p.dir.entries[d].low, e.low)) d++;
                    if (d < p.dir.n && p.dir.entries[d].child == e.child) ch.recent = &p.dir.recent[d];
                }
                children[nchildren++] = ch;
            }
        }
        UnlockReleaseBuffer(buf);
        // (Not under the page lock: a chunk takes a sort.)
        if (st->tbm && st->mvcc && st->nkeys >= kBitmapChunk) add_tids_to_bitmap(st);
        if (read_leaf && st->pause_at > 0 && st->n >= st->pause_at && has_high && high.key <= p.hi) {
            st->paused = true;
            p.resumed = true;
            p.from = high;
            return;
        }
        if (children) {
            visit_children(p, children, nchildren, st, InvalidBuffer);
            pfree(children);
            if (st->paused) return;
        }
        // Done when this page reaches the promised bound or leaves the key range.
        if (!has_high || high.key > p.hi) return;
        if (c.has_high && !sx::key_less(high, c.high)) return;
        if (right == InvalidBlockNumber) simhash_bad_right_link(p.index, blk);
        left = blk;
        blk = right;
        p.hops++;
    }
}

void prefetch_page(Buffer buf, size_t bytes = BLCKSZ) {
    const char *page = static_cast<const char *>(BufferGetPage(buf));
    for (size_t off = 0; off < bytes; off += 64) __builtin_prefetch(page + off);
    // The page check reads the special space at the page's end first.
    if (bytes < BLCKSZ) __builtin_prefetch(page + BLCKSZ - MAXALIGN(sizeof(SimhashPageOpaque)));
}

// A sweep reads every leaf once, and its time went into the first touch of
// each page: pin the next child and prefetch its page into the cache while
// the current one is read. `first` is children[0] already pinned, or
// InvalidBuffer.
void visit_children(Pass &p, const Child *children, size_t n, ScanState *st, Buffer first) {
    Buffer next = n == 0 ? InvalidBuffer : first != InvalidBuffer ? first : read_child(p.index, children[0]);
    for (size_t i = 0; i < n; ++i) {
        Buffer cur = next;
        next = i + 1 < n ? read_child(p.index, children[i + 1]) : InvalidBuffer;
        if (next != InvalidBuffer) prefetch_page(next);
        // A batch's radius shrinks as its heap fills: test again (nothing
        // else about a child changes once it was listed).
        if (i > 0 && st->batch > 0 && child_prunable(p, st, children[i])) {
            ReleaseBuffer(cur);
            continue;
        }
        visit(p, children[i], st, cur);
        if (st->paused) {
            if (next != InvalidBuffer) ReleaseBuffer(next);
            return;
        }
    }
}

// Where a pass starts: the directory's children whose ranges meet the pass's
// keys, or the table's root when it has no directory. Where rows crowd
// behind a prefix the query shares, the range spans many leaves, and the
// summaries of their keys could rule most of them out. The directory's copies
// may be stale, but summaries only weaken: a leaf its copy does not rule out
// stays in. When its copies rule out more than kRuledOut leaves, the walk
// starts at the root instead, whose internal pages' summaries are current.
constexpr size_t kRuledOut = 8;

// Where rows crowd behind a prefix the query shares, most of a wide range's
// directory entries are ruled out one after another by the leading bits
// their ranges share: the query differs from them in more than the radius
// there. Take the block of keys that share entry i's key up to its radius +
// 1-th difference from the query: every later entry whose range lies inside
// it is ruled out on those bits alone, so the walk jumps to the last entry
// starting inside the block, which it still tests (its range may leave it).
// The jumps are short (a block of a few entries, often): found by galloping
// from `i`, as a binary search of the whole directory cost more than the
// tests it saved.
size_t skip_ruled_out_block(const Pass &p, const ScanState *st, const SimhashDirectory &dir, size_t i,
                            const Child &c) {
    // The shortest prefix of the entry's key holding radius + 1 differences.
    uint64 x = c.low.key ^ p.qkey;
    for (int r = current_radius(p, st); r > 0 && x != 0; --r) x &= ~(uint64{1} << (63 - __builtin_clzll(x)));
    if (x == 0) return i;
    int prefix = __builtin_clzll(x) + 1;
    uint64 block_end = prefix == 64 ? c.low.key : c.low.key | (~uint64{0} >> prefix);
    size_t lo = i, step = 1;
    while (lo + step < dir.n && dir.entries[lo + step].low.key <= block_end) {
        lo += step;
        step *= 2;
    }
    size_t hi = std::min<size_t>(lo + step, dir.n);
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (dir.entries[mid].low.key <= block_end)
            lo = mid;
        else
            hi = mid;
    }
    return lo > i + 1 ? lo - 1 : i;  // the loop tests lo next (i + 1 without a jump)
}

size_t first_children(const Pass &p, const SimhashMeta &meta, const ScanState *st, Child **out) {
    const SimhashDirectory &dir = p.dir;
    const Child root{meta.roots[p.table], -1, {0, 0, 0}, false, {0, 0, 0}, nullptr};
    if (dir.n == 0) {
        *out = static_cast<Child *>(palloc(sizeof(Child)));
        (*out)[0] = root;
        return 1;
    }
    size_t first = simhash_directory_find(dir, first_key(p));
    // (Both ends by binary search: a crowded prefix spans ~1,000 entries.)
    size_t end = p.hi == ~uint64{0} ? dir.n : std::max<size_t>(first, simhash_directory_find(dir, {p.hi + 1, 0, 0}));
    while (end < dir.n && dir.entries[end].low.key <= p.hi) end++;
    Child *children = static_cast<Child *>(palloc(sizeof(Child) * (end - first)));
    // (A probe of random keys spans one or two leaves: no hint can pay.)
    bool wide = end - first > kRuledOut && dir.child_level == 0;
    size_t n = 0, ruled_out = 0;
    for (size_t i = first; i < end; ++i) {
        bool has_high = i + 1 < dir.n;
        Child ch{dir.entries[i].child, dir.child_level, dir.entries[i].low, has_high,
                 has_high ? dir.entries[i + 1].low : sx::EntryKey{0, 0, 0}, &dir.recent[i]};
        if (child_prunable(p, st, ch)) {
            i = skip_ruled_out_block(p, st, dir, i, ch);
            continue;
        }
        children[n++] = ch;
        if (!wide) continue;
        ch.keys_and = dir.summaries[i].keys_and;
        ch.keys_or = dir.summaries[i].keys_or;
        if (child_prunable(p, st, ch) && ++ruled_out > kRuledOut) {
            children[0] = root;
            n = 1;
            break;
        }
    }
    *out = children;
    return n;
}

// The lines of a leaf that locate a key range: the page and packed headers
// and (at the usual bucket widths) the bucket directory.
constexpr size_t kLeafHeadBytes = 256;

// Runs the passes (one per table at most), from the directory or a root
// (first_children). A probe's leaves, one per table, are rarely in the CPU
// cache at 10M rows, and each is a chain of misses (page header, directory,
// entries): the chains run side by side, by first pinning every pass's first
// page and loading its head, then loading the entries each will read, and
// only then reading any. Returns how many passes it finished: fewer when a
// streaming scan paused (st->paused).
int run_passes(Relation index, Pass *passes, int npasses, ScanState *st) {
    SimhashCache *cache = simhash_cache(index);
    Child *children[sx::kMaxTables + 1];
    size_t nchildren[sx::kMaxTables + 1];
    Buffer first[sx::kMaxTables + 1];
    uint32 hops = 0;
    for (int i = 0; i < npasses; ++i) {
        passes[i].dir = simhash_directory(cache, passes[i].table);
        nchildren[i] = first_children(passes[i], cache->meta, st, &children[i]);
        // Pinning reads the buffer's descriptor, rarely in the CPU cache at 10M rows.
        if (nchildren[i] > 0 && children[i][0].recent != nullptr && *children[i][0].recent > 0)
            __builtin_prefetch(GetBufferDescriptor(*children[i][0].recent - 1));
        // A table that had no directory may have grown one level since.
        if (passes[i].dir.n == 0 && passes[i].table < cache->meta.tables) hops++;
    }
    for (int i = 0; i < npasses; ++i) {
        first[i] = nchildren[i] > 0 ? read_child(index, children[i][0]) : InvalidBuffer;
        if (first[i] != InvalidBuffer) prefetch_page(first[i], kLeafHeadBytes);
    }
    for (int i = 0; i < npasses; ++i) {
        if (first[i] == InvalidBuffer) continue;
        LockBuffer(first[i], BUFFER_LOCK_SHARE);
        simhash_check_page(index, first[i]);
        Page page = BufferGetPage(first[i]);
        if (page_opaque(page)->flags & kPageLeaf) page_leaf(page).prefetch(passes[i].lo, passes[i].hi);
        else prefetch_page(first[i]);
        LockBuffer(first[i], BUFFER_LOCK_UNLOCK);
    }
    int done = 0;
    for (; done < npasses && !st->paused; ++done) {
        visit_children(passes[done], children[done], nchildren[done], st, first[done]);
        pfree(children[done]);
        hops += passes[done].hops;
    }
    if (st->paused) {
        done--;
        for (int i = done + 1; i < npasses; ++i) {
            if (first[i] != InvalidBuffer) ReleaseBuffer(first[i]);
            pfree(children[i]);
        }
    }
    // (The walk took no lock that could have run a relcache invalidation.)
    static_cast<SimhashCache *>(index->rd_amcache)->hops += hops;
    return done;
}

// Skewed fingerprints can give one table's prefix range a thousand leaves and
// another's one (a k = 6 probe of the PEP fingerprints read 70 leaves of one
// table, 1 of another). A probe rules out more of its subtrees the more probes
// ran before it (earlier_differences: each earlier prefix is one more bit in
// which a row it must report differs), so the probes run from the narrowest
// range to the widest, by the directory entries each range spans (pages of
// one level in every table, else no order is drawn); ties keep probe_order.
// (Ordering by widths within a factor of two as equal read 1.4-2.7% more
// pages of the PEP fingerprints' index; on random data widths differ by a
// page boundary at most, and the pages read were the same either way.)
void order_by_width(Relation index, Pass *passes, int npasses) {
    SimhashCache *cache = simhash_cache(index);
    size_t width[sx::kMaxTables];
    int level = -1;
    for (int i = 0; i < npasses; ++i) {
        SimhashDirectory dir = simhash_directory(cache, passes[i].table);
        if (dir.n == 0 || (i > 0 && dir.child_level != level)) return;
        level = dir.child_level;
        width[i] = simhash_directory_find(dir, {passes[i].hi, MaxBlockNumber, MaxOffsetNumber}) -
                   simhash_directory_find(dir, {passes[i].lo, 0, 0});
    }
    for (int i = 1; i < npasses; ++i)
        for (int j = i; j > 0 && width[j] < width[j - 1]; --j) {
            std::swap(width[j], width[j - 1]);
            std::swap(passes[j], passes[j - 1]);
        }
}

// The passes that find every entry within `radius` of `center`: the prefix
// probes of every table when the layout guarantees that radius and they read
// less than one table, else a sweep of table 0 (still pruned by radius).
// Under an MVCC snapshot the probes run narrowest first (order_by_width), and
// each learns the earlier ones' prefixes (found_earlier), in *earlier, which
// the caller frees.
int plan_passes(Relation index, const ScanState *st, const SimhashMeta &meta, const sx::Layout &layout, uint64 center,
                int radius, int above, int upto, Pass *passes, uint64 **earlier) {
    int npasses = 0;
    *earlier = nullptr;
    if (radius > meta.max_distance || sx::probe_fraction(layout, radius) >= 1.0) {
        passes[npasses++] = {index, &layout, 0, 0, ~uint64{0}, sx::table_key(layout, 0, center), radius, above, upto, 0};
        return npasses;
    }
    int order[sx::kMaxTables];
    sx::probe_order(layout, order);
    for (int i = 0; i < meta.tables; ++i) {
        int t = order[i];
        uint64 qkey = sx::table_key(layout, t, center);
        sx::KeyRange r = sx::prefix_range(qkey, sx::prefix_bits(layout, t, radius));
        Pass &p = passes[npasses++];
        p = {index, &layout, t, r.lo, r.hi, qkey, radius, above, upto, 0};
        p.fp_mask = sx::table_fingerprint(layout, t, ~(r.lo ^ r.hi));
        p.fp_prefix = sx::table_fingerprint(layout, t, r.lo);
    }
    if (!st->mvcc) return npasses;
    order_by_width(index, passes, npasses);
    uint64 *e = static_cast<uint64 *>(palloc(sizeof(uint64) * 2 * npasses * npasses));
    for (int i = 0; i < npasses; ++i) {
        Pass &p = passes[i];
        p.earlier = e + 2 * npasses * i;
        p.nearlier = i;
        for (int u = 0; u < i; ++u) {
            e[2 * npasses * i + 2 * u] = sx::table_key(layout, p.table, passes[u].fp_mask);
            e[2 * npasses * i + 2 * u + 1] = sx::table_key(layout, p.table, passes[u].fp_prefix);
        }
    }
    *earlier = e;
    return npasses;
}

// Collects every entry within `radius` of `center` (and inside all balls,
// and in the distance window) in one walk.
void collect(Relation index, ScanState *st, uint64 center, int radius, int above, int upto) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    Pass passes[sx::kMaxTables];
    uint64 *earlier;
    int npasses = plan_passes(index, st, meta, layout, center, radius, above, upto, passes, &earlier);
    run_passes(index, passes, npasses, st);
    if (earlier) pfree(earlier);
}

// Appends the rows whose fingerprint is NULL.
void collect_nulls(Relation index, ScanState *st) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    Pass p{index, &layout, meta.tables, 0, ~uint64{0}, 0, 64, -1, 64, 0};
    run_passes(index, &p, 1, st);
}

// The distance of a hit for ORDER BY argument i, meaningless when either is NULL.
int order_distance(const ScanState *st, const Hit &h, int i) {
    return i == 0 ? h.distance : simhash::hamming_distance(h.fp, st->order_args[i]);
}

// Puts the hits in TID order, by a radix sort of 8-byte keys, then moving
// each hit once: each key is a hit's TID packed into the bits the hits'
// blocks and offsets need (pack_tids), with the hit's position above them. A
// comparison sort moving the 40-byte hits was a tenth of a plain scan
// returning 2,000 rows, and 15% of one returning 350,000 in streaming batches
// of 100,000, too many positions for the 16 bits left beside a whole TID.
void sort_hits_by_tid(ScanState *st) {
    Size n = st->n;
    if (n >= sx::kTidSortMinRadix) {
        uint64 *keys = static_cast<uint64 *>(MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n));
        for (Size i = 0; i < n; ++i) keys[i] = st->hits[i].rank & kTidBits;
        int bits = sx::pack_tids(keys, n, [] { CHECK_FOR_INTERRUPTS(); });
        // (Room for the positions unless the hits span terabytes of heap.)
        if (bits + simhash::bit_width(n - 1) <= 64) {
            for (Size i = 0; i < n; ++i) keys[i] |= static_cast<uint64>(i) << bits;
            uint64 *scratch = static_cast<uint64 *>(MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint64) * n));
            sx::sort_tids(keys, scratch, n, bits, [] { CHECK_FOR_INTERRUPTS(); });
            pfree(scratch);
            // Place i takes the hit at position keys[i] >> bits: each cycle of
            // that permutation is followed in place (a scan collecting
            // millions of hits holds no second copy of them), and a place
            // filled points to itself.
            for (Size i = 0; i < n; ++i) {
                Size from = keys[i] >> bits;
                if (from == i) continue;
                Hit first = st->hits[i];
                Size to = i;
                do {
                    st->hits[to] = st->hits[from];
                    keys[to] = static_cast<uint64>(to) << bits;
                    to = from;
                    from = keys[to] >> bits;
                } while (from != i);
                st->hits[to] = first;
                keys[to] = static_cast<uint64>(to) << bits;
            }
            pfree(keys);
            return;
        }
        pfree(keys);
    }
    std::sort(st->hits, st->hits + n, tid_less);
}

// Sorts the hits, drops repeated TIDs, orders by distance if asked: by each
// ORDER BY distance in turn, then by TID; NULL fingerprints last.
void finish_hits(ScanState *st) {
    sort_hits_by_tid(st);
    Hit *begin = st->hits, *end = st->hits + st->n;
    end = std::unique(begin, end, [](const Hit &a, const Hit &b) {
        return ItemPointerEquals(const_cast<ItemPointer>(&a.tid), const_cast<ItemPointer>(&b.tid));
    });
    st->n = end - begin;
    if (st->ordered) std::sort(begin, end, [st](const Hit &a, const Hit &b) {
        if (a.null_fp != b.null_fp) return b.null_fp;
        if (a.distance == b.distance)
            for (int i = 1; i < st->norderbys; ++i) {
                if (st->order_args_null[i]) continue;
                int da = order_distance(st, a, i), db = order_distance(st, b, i);
                if (da != db) return da < db;
            }
        return distance_less(a, b);
    });
}

// The next batch of a streaming scan: its walk from where the last one
// paused, until it pauses again or ends. In TID order, for the heap's sake
// (an index-only scan's in the walk's).
// Each hit is new: under an MVCC snapshot each row comes from its first
// pass only (found_earlier), and a pass resumes past every entry it read.
// Entries only move right, so the descent to the resume key misses none;
// a row that committed since holds entries our snapshot cannot see.
void next_stream_batch(Relation index, ScanState *st) {
    st->n = st->pos = 0;
    while (st->n == 0 && st->pass < st->npasses) {
        Pass &p = st->passes[st->pass];
        p.hops = 0;
        st->paused = false;
        st->pass += run_passes(index, &p, st->npasses - st->pass, st);
    }
    st->exhausted = st->pass == st->npasses;
    st->pause_at = Max(static_cast<Size>(work_mem) * 1024 / sizeof(Hit), kMinStreamBatch);
    // An index-only scan rarely reads the heap, and its rechecks read each
    // leaf once for all its hits when they come in the walk's order.
    if (!st->recheck) sort_hits_by_tid(st);
}

void start_stream(Relation index, ScanState *st, const Ball &drive) {
    SimhashMeta meta = simhash_read_meta(index);
    st->layout = simhash_layout(meta);
    st->passes = static_cast<Pass *>(palloc(sizeof(Pass) * sx::kMaxTables));
    uint64 *earlier;  // freed with the scan's memory
    st->npasses = plan_passes(index, st, meta, st->layout, drive.center, drive.radius, -1, 64, st->passes, &earlier);
    st->streaming = true;
    st->pass = 0;
    st->paused = false;
    st->pause_at = kFirstStreamBatch;
    next_stream_batch(index, st);
}

// ORDER BY fp <-> q: nearest first, in batches (next_batch), none beyond
// max_radius; the NULL rows last, unless a qualifier excludes them. Rank 0
// is below every hit's.
void start_nearest(ScanState *st, int max_radius) {
    st->probing = true;
    st->exhausted = false;
    st->after.rank = 0;
    st->batch = 0;
    st->max_radius = Min(max_radius, 64);
    st->nulls_left = st->nballs == 0;
}

void start(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    st->started = true;
    st->exhausted = true;
    if (st->impossible) return;
    MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
    // A probe finds a few rows; the arrays double as needed.
    if (st->tbm) {
        st->keys_cap = 64;
        st->tid_keys = static_cast<uint64 *>(palloc(st->keys_cap * sizeof(uint64)));
    } else {
        st->cap = 64;
        st->hits = static_cast<Hit *>(palloc(st->cap * sizeof(Hit)));
    }
    st->recheck = scan->xs_want_itup || !IsMVCCSnapshot(scan->xs_snapshot);
    st->mvcc = IsMVCCSnapshot(scan->xs_snapshot);
    st->snapshot = scan->xs_snapshot;
    // One ORDER BY distance, to a point: its rows can come nearest first.
    bool by_distance = st->ordered && !st->order_null && st->norderbys == 1;
    if (st->nballs > 0) {
        Ball drive = st->balls[0];
        for (int b = 1; b < st->nballs; ++b)
            if (st->balls[b].radius < drive.radius) drive = st->balls[b];
        if (st->mvcc && !st->tbm && !st->ordered) {
            start_stream(scan->indexRelation, st, drive);
            MemoryContextSwitchTo(old);
            return;
        }
        // WHERE fp <@ ball(q, k) ORDER BY fp <-> q: the nearest rows in
        // batches, as without the qualifier, but none beyond k (other balls
        // are checked on each candidate). Collecting every row within k
        // first read and sorted them all for a LIMIT 10. Not when a smaller
        // ball elsewhere drives (the smallest radius): its probe reads less.
        bool nearest = false;
        if (by_distance)
            for (int b = 0; b < st->nballs && !nearest; ++b)
                nearest = st->balls[b].center == st->order_q && st->balls[b].radius == drive.radius;
        if (nearest) {
            start_nearest(st, drive.radius);
            MemoryContextSwitchTo(old);
            return;
        }
        collect(scan->indexRelation, st, drive.center, drive.radius, -1, 64);
    } else if (by_distance) {
        start_nearest(st, 64);
        MemoryContextSwitchTo(old);
        return;
    } else {
        // No qualifier: every row, NULL fingerprints included (last).
        collect(scan->indexRelation, st, 0, 64, -1, 64);
        collect_nulls(scan->indexRelation, st);
    }
    if (!st->tbm) finish_hits(st);
    MemoryContextSwitchTo(old);
}

// The next batch: a streaming scan's, or the nearest rows beyond those
// returned: from the probes while rows within max_distance (and max_radius)
// may remain, then from sweeps of table 0 up to max_radius.
void next_batch(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
    if (st->streaming) {
        next_stream_batch(scan->indexRelation, st);
        MemoryContextSwitchTo(old);
        return;
    }
    st->n = st->pos = 0;
    if (st->exhausted) {
        // Only the NULL rows are left; they are not ordered by any distance.
        st->nulls_left = false;
        Size batch = st->batch;
        st->batch = 0;
        collect_nulls(scan->indexRelation, st);
        st->batch = batch;
        MemoryContextSwitchTo(old);
        return;
    }
    Size batch = st->batch > 0 ? st->batch * 2 : st->probing ? kFirstProbeBatch : kFirstSweepBatch;
    if (st->cap < batch) {
        st->hits = static_cast<Hit *>(repalloc_huge(st->hits, batch * sizeof(Hit)));
        st->cap = batch;
    }
    st->batch = batch;
    // The probes reach max_distance; a sweep, every row; neither beyond max_radius.
    int max_distance = simhash_read_meta(scan->indexRelation).max_distance;
    int radius = st->probing ? Min(max_distance, st->max_radius) : st->max_radius;
    collect(scan->indexRelation, st, st->order_q, radius, -1, radius);
    // A heap that did not fill holds every remaining hit of its range. (A
    // non-MVCC probe may hold a row twice, from two tables: same rank, so
    // adjacent once sorted.)
    bool full = st->n == batch;
    std::sort_heap(st->hits, st->hits + st->n, distance_less);
    st->n = std::unique(st->hits, st->hits + st->n, [](const Hit &a, const Hit &b) { return a.rank == b.rank; }) -
            st->hits;
    if (full) {
        st->after = st->hits[st->n - 1];
    } else if (st->probing && radius < st->max_radius) {
        // Beyond max_distance, from sweeps.
        st->probing = false;
        st->batch = 0;
        ItemPointerSet(&st->after.tid, MaxBlockNumber, MaxOffsetNumber);
        st->after.rank = rank_of(radius, st->after.tid);
    } else {
        st->exhausted = true;
    }
    MemoryContextSwitchTo(old);
}

void release_pin(ScanState *st) {
    if (BufferIsValid(st->pinned)) ReleaseBuffer(st->pinned);
    st->pinned = InvalidBuffer;
    st->verified_end = 0;
}

// Before an index-only scan returns a hit, the executor will trust the
// visibility map for its heap page and never look at the heap tuple. A
// VACUUM that removed the hit's entries after we collected it could by then
// have freed the dead tuple and set that page all-visible, and we would
// return a deleted row. So the entry must still be in its leaf now, and
// that leaf stays pinned until the executor is done with the row (the next
// call): VACUUM takes a cleanup lock on every leaf before removing entries
// from it, and it removes a dead TID from all tables before the heap's
// second pass may free the tuple or set the page all-visible. One entry
// present and pinned in one table therefore holds that whole sequence back
// for this TID; pinning the other tables' copies adds nothing, and pinning
// the leaves of rows already returned protects nothing. An entry that is no
// longer there was removed by VACUUM, which only removes TIDs dead to
// everyone: the row is invisible to us and is skipped. Entries only move
// right (B-link splits) and pages are never deleted, so the search follows
// right-links from the leaf where the hit was found; except that a leaf root
// that split since became an internal page (its entries moved to two new
// leaves below it), and the search then descends from it. The same pin keeps
// a non-MVCC scan's TID from being reused by an unrelated tuple before the
// heap fetch.
//
// find_entry goes on from buf (share-locked): the hit's leaf, already found
// not to hold the entry (and tested against an old snapshot), or the leaf
// root that split. It leaves the leaf that holds the entry pinned.
bool find_entry(Relation index, ScanState *st, Buffer buf, const sx::EntryKey &want) {
    for (;;) {
        Page page = BufferGetPage(buf);
        if (!(page_opaque(page)->flags & kPageLeaf)) {
            BlockNumber root = BufferGetBlockNumber(buf);
            UnlockReleaseBuffer(buf);
            buf = simhash_find_leaf(index, root, want, false);
        } else if (beyond_high(page, want)) {
            buf = simhash_step_right(index, buf, BUFFER_LOCK_SHARE);
        } else {
            UnlockReleaseBuffer(buf);
            return false;
        }
        page = BufferGetPage(buf);
        if (!(page_opaque(page)->flags & kPageLeaf)) continue;
        refuse_if_too_old(st, index, page);
        if (page_leaf(page).contains(want)) {
            LockBuffer(buf, BUFFER_LOCK_UNLOCK);
            st->pinned = buf;
            return true;
        }
    }
}

// Whether hit i's entry is still in the index (see above). With it, checks
// the hits after it found in the same leaf (a streaming index-only batch
// keeps the order its walk found them in) under the same lock, up to the
// first one missing there, and keeps that leaf pinned: each present there
// is then held back from VACUUM as hit i is, without a buffer lookup and a
// lock per row. (Stopping at a miss keeps the hits after it from being
// checked again once find_entry has moved the pin, for each miss: many
// misses follow a split that moved the leaf's upper half right.)
bool recheck_leaf(Relation index, ScanState *st, Size i) {
    BlockNumber leaf = st->hits[i].leaf;
    Buffer buf = st->pinned;
    st->pinned = InvalidBuffer;
    st->verified_end = 0;
    if (!BufferIsValid(buf) || BufferGetBlockNumber(buf) != leaf) {
        if (BufferIsValid(buf)) ReleaseBuffer(buf);
        // (Holding no pin on the index: a VACUUM may run to its end here.)
        simhash_test_pause();
        buf = ReadBuffer(index, leaf);
    }
    LockBuffer(buf, BUFFER_LOCK_SHARE);
    simhash_check_page(index, buf);
    Page page = BufferGetPage(buf);
    Size end = i;
    // (A leaf root that split since is an internal page: find_entry descends.)
    if (page_opaque(page)->flags & kPageLeaf) {
        refuse_if_too_old(st, index, page);
        sx::Leaf entries = page_leaf(page);
        for (; end < st->n && st->hits[end].leaf == leaf; ++end) {
            Hit &h = st->hits[end];
            if (!entries.contains(entry_key(h.key, &h.tid))) break;
        }
    }
    if (end == i) {
        const Hit &h = st->hits[i];
        return find_entry(index, st, buf, entry_key(h.key, const_cast<ItemPointer>(&h.tid)));
    }
    LockBuffer(buf, BUFFER_LOCK_UNLOCK);
    st->pinned = buf;
    st->verified_end = end;
    return true;
}

bool recheck_entry(Relation index, ScanState *st, Size i) {
    return i < st->verified_end || recheck_leaf(index, st, i);
}

// Search keys are <@ or =, ORDER BY keys <->. A key without a subtype (an
// exclusion constraint's check builds such keys) has the column's type.
void check_argument(Relation index, ScanKey sk, bool ordering) {
    Oid type = OidIsValid(sk->sk_subtype) ? sk->sk_subtype : index->rd_opcintype[0];
    if ((sk->sk_strategy == kStrategyDistance) != ordering || !simhash_reads_argument(index, sk->sk_strategy, type))
        ereport(ERROR, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
                        errmsg("simhash index \"%s\" cannot read an argument of type %s at strategy %d",
                               RelationGetRelationName(index), format_type_be(type), sk->sk_strategy),
                        errhint("Its operator class fails amvalidate().")));
}

}  // namespace

extern "C" IndexScanDesc simhash_ambeginscan(Relation index, int nkeys, int norderbys) {
    IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
    ScanState *st = static_cast<ScanState *>(palloc0(sizeof(ScanState)));
    st->hits_cxt = AllocSetContextCreate(CurrentMemoryContext, "simhash scan hits", ALLOCSET_DEFAULT_SIZES);
    st->balls = static_cast<Ball *>(palloc0(sizeof(Ball) * (nkeys > 0 ? nkeys : 1)));
    scan->opaque = st;
    scan->xs_itupdesc = RelationGetDescr(index);
    if (norderbys > 0) {
        scan->xs_orderbyvals = static_cast<Datum *>(palloc0(sizeof(Datum) * norderbys));
        scan->xs_orderbynulls = static_cast<bool *>(palloc0(sizeof(bool) * norderbys));
        st->order_args = static_cast<uint64 *>(palloc0(sizeof(uint64) * norderbys));
        st->order_args_null = static_cast<bool *>(palloc0(sizeof(bool) * norderbys));
    }
    return scan;
}

extern "C" void simhash_amrescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    if (keys && scan->numberOfKeys > 0) memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
    if (orderbys && scan->numberOfOrderBys > 0)
        memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));
    release_pin(st);
    MemoryContextReset(st->hits_cxt);
    st->hits = nullptr;
    st->tid_keys = nullptr;
    st->nkeys = st->keys_cap = 0;
    st->tbm = nullptr;
    st->itup = nullptr;
    st->n = st->cap = st->pos = 0;
    st->started = st->probing = st->impossible = st->streaming = st->paused = false;
    st->passes = nullptr;
    st->pause_at = 0;
    st->exhausted = true;
    st->nulls_left = false;
    st->batch = 0;
    st->nballs = 0;
    for (int i = 0; i < scan->numberOfKeys; ++i) {
        ScanKey sk = &scan->keyData[i];
        check_argument(scan->indexRelation, sk, false);
        if (sk->sk_flags & SK_ISNULL) {
            st->impossible = true;
            continue;
        }
        if (sk->sk_strategy == kStrategyInBall) {
            const SimhashBall *ball = DatumGetSimhashBall(sk->sk_argument);
            st->balls[st->nballs++] = {ball->center, ball->radius};
        } else {
            st->balls[st->nballs++] = {DatumGetSimhash64(sk->sk_argument), 0};
        }
    }
    (void)nkeys;
    (void)norderbys;
    st->norderbys = scan->numberOfOrderBys;
    for (int i = 0; i < st->norderbys; ++i) {
        ScanKey sk = &scan->orderByData[i];
        check_argument(scan->indexRelation, sk, true);
        st->order_args_null[i] = (sk->sk_flags & SK_ISNULL) != 0;
        st->order_args[i] = st->order_args_null[i] ? 0 : DatumGetSimhash64(sk->sk_argument);
    }
    st->ordered = st->norderbys > 0;
    st->order_null = st->ordered && st->order_args_null[0];
    st->order_q = st->ordered ? st->order_args[0] : 0;
}

extern "C" bool simhash_amgettuple(IndexScanDesc scan, ScanDirection) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    if (!st->started) start(scan);
    if (st->impossible) return false;
    // The leaf of the row returned last stays pinned while the next rows
    // come from it (recheck_leaf); the executor is done with that row.
    const Hit *hit;
    do {
        CHECK_FOR_INTERRUPTS();
        // (A batch may be empty: no row within max_distance.)
        while (st->pos >= st->n && (!st->exhausted || st->nulls_left)) {
            release_pin(st);
            next_batch(scan);
        }
        if (st->pos >= st->n) {
            release_pin(st);
            return false;
        }
        hit = &st->hits[st->pos++];
    } while (st->recheck && !recheck_entry(scan->indexRelation, st, st->pos - 1));
    const Hit &h = *hit;
    scan->xs_heaptid = h.tid;
    scan->xs_recheck = false;
    if (scan->xs_want_itup) {
        if (st->itup) pfree(st->itup);
        MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
        Datum value = Simhash64GetDatum(h.fp);
        bool isnull = h.null_fp;
        st->itup = index_form_tuple(scan->xs_itupdesc, &value, &isnull);
        scan->xs_itup = st->itup;
        MemoryContextSwitchTo(old);
    }
    for (int i = 0; i < st->norderbys; ++i) {
        scan->xs_orderbyvals[i] = Int32GetDatum(order_distance(st, h, i));
        scan->xs_orderbynulls[i] = st->order_args_null[i] || h.null_fp;
    }
    scan->xs_recheckorderby = false;
    return true;
}

extern "C" int64 simhash_amgetbitmap(IndexScanDesc scan, TIDBitmap *tbm) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    st->tbm = tbm;
    st->ntids = 0;
    if (!st->started) start(scan);
    if (st->nkeys > 0) {
        MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
        add_tids_to_bitmap(st);
        MemoryContextSwitchTo(old);
    }
    st->tbm = nullptr;
    return st->ntids;
}

extern "C" void simhash_amendscan(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    release_pin(st);
    MemoryContextDelete(st->hits_cxt);
    pfree(st->balls);
    if (st->order_args != nullptr) {
        pfree(st->order_args);
        pfree(st->order_args_null);
    }
    pfree(st);
    scan->opaque = nullptr;
}
