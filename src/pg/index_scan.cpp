// Scans of the simhash index: bitmap, plain and index-only, and ORDER BY
// fp <-> q. Every candidate's full 64-bit distance is checked here, so the
// executor never rechecks; hits are de-duplicated by TID (a row within k
// usually shares a prefix in several tables).
//
// A scan collects its hits (TID, fingerprint, distance) on the first call.
// This is safe without holding pins for MVCC snapshots: a heap slot VACUUM
// frees and a later insert reuses holds a tuple our snapshot cannot see.
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "utils/memutils.h"
}

#include "hamming.hpp"
#include "simhash_ball.hpp"

namespace {

struct Hit {
    ItemPointerData tid;
    int16 distance;  // to the ORDER BY argument, 0 without one
    uint64 fp;
};

struct Ball {
    uint64 center;
    int radius;
};

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
    bool swept;  // ORDER BY without a qualifier: the sweep beyond max_distance ran
    Hit *hits;
    Size n, cap, pos;
};

bool tid_less(const Hit &a, const Hit &b) { return ItemPointerCompare(const_cast<ItemPointer>(&a.tid), const_cast<ItemPointer>(&b.tid)) < 0; }
bool distance_less(const Hit &a, const Hit &b) { return a.distance != b.distance ? a.distance < b.distance : tid_less(a, b); }

void add_hit(ScanState *st, const sx::EntryKey &e, uint64 fp, int distance) {
    if (st->n == st->cap) {
        st->cap *= 2;
        st->hits = static_cast<Hit *>(repalloc_huge(st->hits, st->cap * sizeof(Hit)));
    }
    Hit *h = &st->hits[st->n++];
    entry_tid(e, &h->tid);
    h->fp = fp;
    h->distance = static_cast<int16>(distance);
}

// The window of distances to the ORDER BY point a pass keeps: (above, upto].
struct Window {
    int above;
    int upto;
};
constexpr Window kAnyDistance{-1, 64};

// Visits the entries of `table` with keys in [lo, hi]; keeps those inside
// every ball and inside the window.
void scan_range(Relation index, const SimhashMeta &meta, const sx::Layout &layout, int table, uint64 lo, uint64 hi,
                ScanState *st, Window w) {
    Buffer buf = simhash_find_leaf(index, meta.roots[table], {lo, 0, 0});
    for (;;) {
        Page page = BufferGetPage(buf);
        const uint8 *area = page_area(page);
        size_t n = page_count(page);
        for (size_t i = 0; i < n; ++i) {
            sx::EntryKey e = sx::leaf_get(area, i);
            if (e.key < lo || e.key > hi) continue;
            uint64 fp = sx::table_fingerprint(layout, table, e.key);
            bool inside = true;
            for (int b = 0; b < st->nballs && inside; ++b)
                inside = simhash::hamming_distance(fp, st->balls[b].center) <= st->balls[b].radius;
            if (!inside) continue;
            int d = st->ordered && !st->order_null ? simhash::hamming_distance(fp, st->order_q) : 0;
            if (d <= w.above || d > w.upto) continue;
            add_hit(st, e, fp, d);
        }
        SimhashPageOpaque *op = page_opaque(page);
        if (!op->has_high || page_high(page).key > hi) break;
        BlockNumber right = op->right;
        UnlockReleaseBuffer(buf);
        CHECK_FOR_INTERRUPTS();
        buf = ReadBuffer(index, right);
        LockBuffer(buf, BUFFER_LOCK_SHARE);
    }
    UnlockReleaseBuffer(buf);
}

// Every entry within `radius` of `center` (and inside all balls): the
// prefix probes of every table when the layout guarantees that radius and
// they read less than one table, else a sweep of table 0.
void collect(Relation index, ScanState *st, uint64 center, int radius, Window w) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    if (radius >= 0 && sx::probe_fraction(layout, radius) < 1.0) {
        for (int t = 0; t < meta.tables; ++t) {
            sx::KeyRange r = sx::prefix_range(sx::table_key(layout, t, center), sx::prefix_bits(layout, t, radius));
            scan_range(index, meta, layout, t, r.lo, r.hi, st, w);
        }
    } else {
        scan_range(index, meta, layout, 0, 0, ~uint64{0}, st, w);
    }
}

// Sorts the hits from `from` on, drops repeated TIDs, orders by distance if asked.
void finish_hits(ScanState *st, Size from) {
    Hit *begin = st->hits + from, *end = st->hits + st->n;
    std::sort(begin, end, tid_less);
    end = std::unique(begin, end, [](const Hit &a, const Hit &b) { return ItemPointerEquals(const_cast<ItemPointer>(&a.tid), const_cast<ItemPointer>(&b.tid)); });
    st->n = end - st->hits;
    if (st->ordered) std::sort(begin, end, distance_less);
}

void start(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    st->started = true;
    if (st->impossible) return;
    MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
    st->cap = 1024;
    st->hits = static_cast<Hit *>(palloc(st->cap * sizeof(Hit)));
    if (st->nballs > 0) {
        Ball drive = st->balls[0];
        for (int b = 1; b < st->nballs; ++b)
            if (st->balls[b].radius < drive.radius) drive = st->balls[b];
        collect(scan->indexRelation, st, drive.center, drive.radius, kAnyDistance);
    } else if (st->ordered && !st->order_null) {
        // Nearest first: everything within max_distance through the probes;
        // the rest, if the executor asks for more, from a sweep.
        int max_distance = simhash_read_meta(scan->indexRelation).max_distance;
        collect(scan->indexRelation, st, st->order_q, max_distance, {-1, max_distance});
    } else {
        collect(scan->indexRelation, st, 0, -1, kAnyDistance);
        st->swept = true;
    }
    finish_hits(st, 0);
    MemoryContextSwitchTo(old);
}

void sweep_beyond(IndexScanDesc scan) {
    ScanState *st = static_cast<ScanState *>(scan->opaque);
    st->swept = true;
    MemoryContext old = MemoryContextSwitchTo(st->hits_cxt);
    Size from = st->n;
    SimhashMeta meta = simhash_read_meta(scan->indexRelation);
    sx::Layout layout = simhash_layout(meta);
    // The first pass returned every row within max_distance; this one keeps
    // only rows beyond it, so none is returned twice.
    scan_range(scan->indexRelation, meta, layout, 0, 0, ~uint64{0}, st, {meta.max_distance, 64});
    finish_hits(st, from);
    MemoryContextSwitchTo(old);
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
    MemoryContextReset(st->hits_cxt);
    st->hits = nullptr;
    st->n = st->cap = st->pos = 0;
    st->started = st->swept = st->impossible = false;
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
    if (!st->started) start(scan);
    if (st->impossible) return false;
    if (st->pos >= st->n && !st->swept && st->ordered && st->nballs == 0) sweep_beyond(scan);
    if (st->pos >= st->n) return false;
    const Hit &h = st->hits[st->pos++];
    scan->xs_heaptid = h.tid;
    scan->xs_recheck = false;
    if (scan->xs_want_itup) {
        MemoryContextReset(st->tuple_cxt);
        MemoryContext old = MemoryContextSwitchTo(st->tuple_cxt);
        Datum value = Simhash64GetDatum(h.fp);
        bool isnull = false;
        scan->xs_itup = index_form_tuple(scan->xs_itupdesc, &value, &isnull);
        MemoryContextSwitchTo(old);
    }
    if (st->ordered) {
        scan->xs_orderbyvals[0] = Int32GetDatum(h.distance);
        scan->xs_orderbynulls[0] = st->order_null;
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
    MemoryContextDelete(st->hits_cxt);
    MemoryContextDelete(st->tuple_cxt);
    pfree(st->balls);
    pfree(st);
    scan->opaque = nullptr;
}
