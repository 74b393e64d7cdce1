// Scans of the simhash index: bitmap, plain and index-only, and ORDER BY
// fp <-> q. Every candidate's full 64-bit distance is checked here, so the
// executor never rechecks; hits are de-duplicated by TID (a row within k
// usually shares a prefix in several tables).
//
// A scan collects its hits (TID, fingerprint, distance, and the leaf each
// came from) on the first call. This is safe without holding pins
// for MVCC snapshots: a heap slot VACUUM frees and a later insert reuses holds
// a tuple our snapshot cannot see. Index-only scans (and non-MVCC scans) need
// more, see recheck_entry.
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

#include "hamming.hpp"
#include "simhash_ball.hpp"

namespace {

struct Hit {
    ItemPointerData tid;
    int16 distance;  // to the ORDER BY argument, 0 without one
    bool null_fp;    // a row of the NULL list
    BlockNumber leaf;  // where the entry was found (a leaf of one table) and
    uint64 key;        // its table key, for recheck_entry
    uint64 fp;
};

struct Ball {
    uint64 center;
    int radius;
};

// ORDER BY without a qualifier returns everything within max_distance from
// the probes, then the rest in batches from sweeps of table 0: each sweep
// keeps the `batch` nearest entries after the last one returned in a bounded
// max-heap, so memory stays bounded and the first rows come after one sweep.
constexpr Size kFirstBatch = 1024;

struct ScanState {
    MemoryContext hits_cxt;
    MemoryContext tuple_cxt;
    Ball *balls;
    int nballs;
    bool impossible;  // a NULL argument: nothing matches
    bool ordered;
    bool order_null;
    uint64 order_q;
    bool started;
    bool sweeping;    // ORDER BY only: the probes are done, batches follow
    bool exhausted;   // no more batches once the hits run out
    bool nulls_left;  // then the NULL rows (distance NULL sorts last)
    Hit after;        // batches keep only (distance, TID) greater than this
    Size batch;       // > 0 while filling a bounded heap
    Hit *hits;
    Size n, cap, pos;
    bool recheck;     // index-only or non-MVCC: recheck_entry before returning
    Buffer pinned;    // the leaf of the entry returned last, or InvalidBuffer
};

bool tid_less(const Hit &a, const Hit &b) {
    return ItemPointerCompare(const_cast<ItemPointer>(&a.tid), const_cast<ItemPointer>(&b.tid)) < 0;
}
bool distance_less(const Hit &a, const Hit &b) { return a.distance != b.distance ? a.distance < b.distance : tid_less(a, b); }

void add_hit(ScanState *st, const sx::EntryKey &e, BlockNumber leaf, uint64 fp, int distance) {
    Hit h;
    entry_tid(e, &h.tid);
    h.leaf = leaf;
    h.key = e.key;
    h.fp = fp;
    h.distance = static_cast<int16>(distance);
    h.null_fp = false;
    if (st->batch > 0) {
        if (!distance_less(st->after, h)) return;
        if (st->n == st->batch) {
            if (!distance_less(h, st->hits[0])) return;
            std::pop_heap(st->hits, st->hits + st->n, distance_less);
            st->n--;
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
};

// The radius a key must be within: the pass's, or, once a batch's bounded
// heap is full, the distance of its farthest entry (nothing farther can enter).
int current_radius(const Pass &p, const ScanState *st) {
    if (st->batch > 0 && st->n == st->batch && st->hits[0].distance < p.radius) return st->hits[0].distance;
    return p.radius;
}

// True when no key in [a, b] can be within `radius` of qkey.
bool prunable(const Pass &p, int radius, uint64 a, uint64 b) {
    if (radius >= 64) return false;
    int common = a == b ? 64 : __builtin_clzll(a ^ b);
    uint64 mask = common == 0 ? 0 : ~uint64{0} << (64 - common);
    return __builtin_popcountll((a ^ p.qkey) & mask) > radius;
}

void leaf_hits(const Pass &p, BlockNumber blk, Page page, ScanState *st) {
    sx::Leaf leaf = page_leaf(page);
    if (p.table == p.layout->tables) {  // the NULL list
        for (size_t i = 0; i < leaf.size(); ++i) {
            add_hit(st, leaf.get(i), blk, 0, 0);
            st->hits[st->n - 1].null_fp = true;
        }
        return;
    }
    // The radius only shrinks while the leaf is read: filter with today's,
    // then check each of the (few) candidates against the current one.
    uint16 near[kMaxLeafEntries];
    size_t m = leaf.near(p.lo, p.hi, p.qkey, current_radius(p, st), near);
    for (size_t j = 0; j < m; ++j) {
        sx::EntryKey e = leaf.get(near[j]);
        if (__builtin_popcountll(e.key ^ p.qkey) > current_radius(p, st)) continue;
        uint64 fp = sx::table_fingerprint(*p.layout, p.table, e.key);
        bool inside = true;
        for (int b = 0; b < st->nballs && inside; ++b)
            inside = simhash::hamming_distance(fp, st->balls[b].center) <= st->balls[b].radius;
        if (!inside) continue;
        int d = st->ordered && !st->order_null ? simhash::hamming_distance(fp, st->order_q) : 0;
        if (d <= p.above || d > p.upto) continue;
        add_hit(st, e, blk, fp, d);
    }
}

struct Child {
    BlockNumber block;
    bool has_high;
    sx::EntryKey high;
};

// Visits page `blk` and, following right-links, its right siblings up to the
// bound the parent promised (a sibling split off after the parent was read).
// One page lock at a time (Lehman-Yao): the children of an internal page are
// copied, the page released, then each child visited. `pinned` is `blk`
// already pinned by the caller, or InvalidBuffer.
void visit(const Pass &p, BlockNumber blk, bool has_bound, const sx::EntryKey &bound, ScanState *st,
           Buffer pinned) {
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        Buffer buf = pinned != InvalidBuffer ? pinned : ReadBuffer(p.index, blk);
        pinned = InvalidBuffer;
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        Page page = BufferGetPage(buf);
        SimhashPageOpaque *op = page_opaque(page);
        bool has_high = op->has_high != 0;
        sx::EntryKey high = page_high(page);
        BlockNumber right = op->right;
        Child *children = nullptr;
        size_t nchildren = 0;
        if (op->flags & kPageLeaf) {
            leaf_hits(p, blk, page, st);
        } else {
            size_t n = internal_count(page);
            children = static_cast<Child *>(palloc(sizeof(Child) * (n > 0 ? n : 1)));
            for (size_t i = 0; i < n; ++i) {
                sx::InternalEntry e = sx::internal_get(page_area(page), i);
                bool child_has_high = i + 1 < n || has_high;
                sx::EntryKey child_high = i + 1 < n ? sx::internal_get(page_area(page), i + 1).low : high;
                uint64 last = child_has_high ? child_high.key : ~uint64{0};
                if (last < p.lo || e.low.key > p.hi || prunable(p, current_radius(p, st), e.low.key, last)) continue;
                children[nchildren++] = {e.child, child_has_high, child_high};
            }
        }
        UnlockReleaseBuffer(buf);
        // A sweep reads every leaf once, and its time went into the first touch
        // of each page: pin the next child and prefetch its page into the cache
        // while the current one is read.
        Buffer next = nchildren > 0 ? ReadBuffer(p.index, children[0].block) : InvalidBuffer;
        for (size_t i = 0; i < nchildren; ++i) {
            Buffer cur = next;
            next = i + 1 < nchildren ? ReadBuffer(p.index, children[i + 1].block) : InvalidBuffer;
            if (next != InvalidBuffer) {
                const char *page = static_cast<const char *>(BufferGetPage(next));
                for (size_t off = 0; off < BLCKSZ; off += 64) __builtin_prefetch(page + off);
            }
            visit(p, children[i].block, children[i].has_high, children[i].high, st, cur);
        }
        if (children) pfree(children);
        // Done when this page reaches the promised bound or leaves the key range.
        if (!has_high || high.key > p.hi) return;
        if (has_bound && !sx::key_less(high, bound)) return;
        blk = right;
    }
}

void run_pass(Relation index, const SimhashMeta &meta, const sx::Layout &layout, int table, uint64 lo, uint64 hi,
              uint64 center, int radius, int above, int upto, ScanState *st) {
    Pass p{index, &layout, table, lo, hi, sx::table_key(layout, table, center), radius, above, upto};
    visit(p, meta.roots[table], false, {0, 0, 0}, st, InvalidBuffer);
}

// Every entry within `radius` of `center` (and inside all balls, and in the
// distance window): the prefix probes of every table when the layout
// guarantees that radius and they read less than one table, else a sweep of
// table 0 (still pruned by radius).
void collect(Relation index, ScanState *st, uint64 center, int radius, int above, int upto) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    if (radius <= meta.max_distance && sx::probe_fraction(layout, radius) < 1.0) {
        for (int t = 0; t < meta.tables; ++t) {
            sx::KeyRange r = sx::prefix_range(sx::table_key(layout, t, center), sx::prefix_bits(layout, t, radius));
            run_pass(index, meta, layout, t, r.lo, r.hi, center, radius, above, upto, st);
        }
    } else {
        run_pass(index, meta, layout, 0, 0, ~uint64{0}, center, radius, above, upto, st);
    }
}

// Appends the rows whose fingerprint is NULL.
void collect_nulls(Relation index, ScanState *st) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    run_pass(index, meta, layout, meta.tables, 0, ~uint64{0}, 0, 64, -1, 64, st);
}

// Sorts the hits, drops repeated TIDs, orders by distance if asked.
void finish_hits(ScanState *st) {
    Hit *begin = st->hits, *end = st->hits + st->n;
    std::sort(begin, end, tid_less);
    end = std::unique(begin, end, [](const Hit &a, const Hit &b) {
        return ItemPointerEquals(const_cast<ItemPointer>(&a.tid), const_cast<ItemPointer>(&b.tid));
    });
    st->n = end - begin;
    if (st->ordered) std::sort(begin, end, [](const Hit &a, const Hit &b) {
        return a.null_fp != b.null_fp ? b.null_fp : distance_less(a, b);
    });
}

void start(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    st->started = true;
    st->exhausted = true;
    if (st->impossible) return;
    MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
    st->cap = 1024;
    st->hits = static_cast<Hit *>(palloc(st->cap * sizeof(Hit)));
    st->recheck = scan->xs_want_itup || !IsMVCCSnapshot(scan->xs_snapshot);
    if (st->nballs > 0) {
        Ball drive = st->balls[0];
        for (int b = 1; b < st->nballs; ++b)
            if (st->balls[b].radius < drive.radius) drive = st->balls[b];
        collect(scan->indexRelation, st, drive.center, drive.radius, -1, 64);
    } else if (st->ordered && !st->order_null) {
        // Nearest first: everything within max_distance through the probes,
        // then batches from sweeps.
        int max_distance = simhash_read_meta(scan->indexRelation).max_distance;
        collect(scan->indexRelation, st, st->order_q, max_distance, -1, max_distance);
        st->sweeping = true;
        st->exhausted = false;
        st->after.distance = static_cast<int16>(max_distance);
        ItemPointerSet(&st->after.tid, MaxBlockNumber, MaxOffsetNumber);
        st->batch = 0;
        st->nulls_left = true;
    } else {
        // No qualifier: every row, NULL fingerprints included (last).
        collect(scan->indexRelation, st, 0, 64, -1, 64);
        collect_nulls(scan->indexRelation, st);
    }
    finish_hits(st);
    MemoryContextSwitchTo(old);
}

// The next batch of nearest rows beyond those returned, from a sweep of table 0.
void next_batch(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
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
    Size batch = st->batch == 0 ? kFirstBatch : st->batch * 2;
    if (st->cap < batch) {
        st->hits = static_cast<Hit *>(repalloc_huge(st->hits, batch * sizeof(Hit)));
        st->cap = batch;
    }
    st->batch = batch;
    SimhashMeta meta = simhash_read_meta(scan->indexRelation);
    sx::Layout layout = simhash_layout(meta);
    run_pass(scan->indexRelation, meta, layout, 0, 0, ~uint64{0}, st->order_q, 64, -1, 64, st);
    std::sort_heap(st->hits, st->hits + st->n, distance_less);
    st->exhausted = st->n < batch;
    if (st->n > 0) st->after = st->hits[st->n - 1];
    MemoryContextSwitchTo(old);
}

void release_pin(ScanState *st) {
    if (BufferIsValid(st->pinned)) ReleaseBuffer(st->pinned);
    st->pinned = InvalidBuffer;
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
// right-links from the leaf where the hit was found. The same pin keeps a
// non-MVCC scan's TID from being reused by an unrelated tuple before the
// heap fetch.
bool recheck_entry(Relation index, ScanState *st, const Hit &h) {
    sx::EntryKey want = entry_key(h.key, const_cast<ItemPointer>(&h.tid));
    BlockNumber blk = h.leaf;
    while (blk != InvalidBlockNumber) {
        Buffer buf = ReadBuffer(index, blk);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
        Page page = BufferGetPage(buf);
        if (page_leaf(page).contains(want)) {
            LockBuffer(buf, BUFFER_LOCK_UNLOCK);
            st->pinned = buf;
            return true;
        }
        blk = beyond_high(page, want) ? page_opaque(page)->right : InvalidBlockNumber;
        UnlockReleaseBuffer(buf);
    }
    return false;
}

}  // namespace

extern "C" IndexScanDesc simhash_ambeginscan(Relation index, int nkeys, int norderbys) {
    IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
    ScanState *st = static_cast<ScanState *>(palloc0(sizeof(ScanState)));
    st->hits_cxt = AllocSetContextCreate(CurrentMemoryContext, "simhash scan hits", ALLOCSET_DEFAULT_SIZES);
    st->tuple_cxt = AllocSetContextCreate(CurrentMemoryContext, "simhash scan tuple", ALLOCSET_SMALL_SIZES);
    st->balls = static_cast<Ball *>(palloc0(sizeof(Ball) * (nkeys > 0 ? nkeys : 1)));
    scan->opaque = st;
    scan->xs_itupdesc = RelationGetDescr(index);
    if (norderbys > 0) {
        scan->xs_orderbyvals = static_cast<Datum *>(palloc0(sizeof(Datum) * norderbys));
        scan->xs_orderbynulls = static_cast<bool *>(palloc(sizeof(bool) * norderbys));
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
    st->n = st->cap = st->pos = 0;
    st->started = st->sweeping = st->impossible = false;
    st->exhausted = true;
    st->nulls_left = false;
    st->batch = 0;
    st->nballs = 0;
    for (int i = 0; i < scan->numberOfKeys; ++i) {
        ScanKey sk = &scan->keyData[i];
        if (sk->sk_flags & SK_ISNULL) {
            st->impossible = true;
            continue;
        }
        if (sk->sk_strategy == kStrategyInBall) {
            const SimhashBall *ball = DatumGetSimhashBall(sk->sk_argument);
            st->balls[st->nballs++] = {ball->center, ball->radius};
        } else if (sk->sk_strategy == kStrategyEqual) {
            st->balls[st->nballs++] = {DatumGetSimhash64(sk->sk_argument), 0};
        } else {
            elog(ERROR, "simhash index: unexpected strategy %d", sk->sk_strategy);
        }
    }
    (void)nkeys;
    (void)norderbys;
    st->ordered = scan->numberOfOrderBys > 0;
    st->order_null = st->ordered && (scan->orderByData[0].sk_flags & SK_ISNULL);
    st->order_q = st->ordered && !st->order_null ? DatumGetSimhash64(scan->orderByData[0].sk_argument) : 0;
}

extern "C" bool simhash_amgettuple(IndexScanDesc scan, ScanDirection) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    release_pin(st);
    if (!st->started) start(scan);
    if (st->impossible) return false;
    const Hit *hit;
    do {
        CHECK_FOR_INTERRUPTS();
        if (st->pos >= st->n && (!st->exhausted || st->nulls_left)) next_batch(scan);
        if (st->pos >= st->n) return false;
        hit = &st->hits[st->pos++];
    } while (st->recheck && !recheck_entry(scan->indexRelation, st, *hit));
    const Hit &h = *hit;
    scan->xs_heaptid = h.tid;
    scan->xs_recheck = false;
    if (scan->xs_want_itup) {
        MemoryContextReset(st->tuple_cxt);
        MemoryContext old = MemoryContextSwitchTo(st->tuple_cxt);
        Datum value = Simhash64GetDatum(h.fp);
        bool isnull = h.null_fp;
        scan->xs_itup = index_form_tuple(scan->xs_itupdesc, &value, &isnull);
        MemoryContextSwitchTo(old);
    }
    if (st->ordered) {
        scan->xs_orderbyvals[0] = Int32GetDatum(h.distance);
        scan->xs_orderbynulls[0] = st->order_null || h.null_fp;
        scan->xs_recheckorderby = false;
    }
    return true;
}

extern "C" int64 simhash_amgetbitmap(IndexScanDesc scan, TIDBitmap *tbm) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    if (!st->started) start(scan);
    if (st->impossible) return 0;
    for (Size i = 0; i < st->n; ++i) tbm_add_tuples(tbm, &st->hits[i].tid, 1, false);
    return static_cast<int64>(st->n);
}

extern "C" void simhash_amendscan(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    release_pin(st);
    MemoryContextDelete(st->hits_cxt);
    MemoryContextDelete(st->tuple_cxt);
    pfree(st->balls);
    pfree(st);
    scan->opaque = nullptr;
}
