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
// scans) need more: index_recheck.cpp.
//
// The scan's files: this one holds the access method's calls, the start of a
// scan and its batches; index_walk.cpp the passes over the tables;
// index_hits.cpp the hits; index_recheck.cpp the index-only check.
#include "index_scan.hpp"

#include <algorithm>

extern "C" {
#include "access/relscan.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

#include "simhash_ball.hpp"
#include "within_probability.hpp"

namespace index_scan {

namespace {

// ORDER BY without a qualifier, or under a ball around its point, returns its
// rows in batches, each the `batch` nearest entries after the last one
// returned, kept in a bounded max-heap: first from the probes, up to
// max_distance and then to their reach (start_nearest), then from sweeps of
// table 0 (up to the ball's radius). So a LIMIT 10 among thousands of
// near-duplicates reads their keys but collects few of them (the heap's
// farthest entry narrows the radius), and the first rows beyond the probes'
// reach come after one sweep; each batch doubles, and a sweep's re-reads the
// table.
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
        p.hops = p.descended = 0;
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
    // (The passes are freed with the scan's memory.)
    st->npasses = plan_passes(index, st, meta, st->layout, drive.center, drive.radius, -1, 64, &st->passes);
    st->streaming = true;
    st->pass = 0;
    st->paused = false;
    st->pause_at = kFirstStreamBatch;
    next_stream_batch(index, st);
}

// The rows an index of the default layout holds now: its statistics scaled to
// its current size, as the planner scales a table's, or, with none yet (an
// index created empty), its leaves at about 800 entries each.
double index_rows(Relation index, const sx::Layout &layout) {
    const double pages = RelationGetNumberOfBlocks(index);
    if (index->rd_rel->reltuples > 0 && index->rd_rel->relpages > 0)
        return index->rd_rel->reltuples / index->rd_rel->relpages * pages;
    return pages / layout.tables * 800;
}

// Rows a random value should find within a stage's radius for that stage to
// end most nearest-first reads (a LIMIT of ten or so, which the index is not
// told) without a sweep.
constexpr double kNearestWanted = 16;

// ORDER BY fp <-> q: nearest first, in batches (next_batch), none beyond
// max_radius; the NULL rows last, unless a qualifier excludes them. Rank 0
// is below every hit's. The probes run to max_distance, then, where rows may
// lie beyond, widen in stages (probe_stages), each where probing that far
// reads less than a sweep: to a ball's radius; or to the widest radius whose
// probes flip at most one bit of each prefix (default index: 7; 68 probes, 4%
// of a sweep of 1M rows), so that the nearest rows a few bits beyond
// max_distance come without a sweep, and then to the widest radius of the
// narrowest probe plan within which random values have kNearestWanted rows:
// 15 at 10M rows (2,788 probes, 122 rows), where the nearest rows of a random
// value lie 12-14 bits away; none at 1M, where that plan's radius would be
// 19, beyond what probes pay for, and probes short of it would only delay
// the sweep. (Within a ball's radius, none beyond it.)
void start_nearest(Relation index, ScanState *st, int max_radius) {
    st->probing = true;
    st->exhausted = false;
    st->after.rank = 0;
    st->batch = 0;
    st->max_radius = Min(max_radius, 64);
    st->nulls_left = st->nballs == 0;
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    st->probe_radius = Min(meta.max_distance, st->max_radius);
    st->nstages = st->stage = 0;
    if (st->max_radius <= meta.max_distance) return;
    if (st->nballs > 0 && probes_at(index, layout, st->max_radius)) {
        st->probe_stages[st->nstages++] = st->max_radius;
        return;
    }
    // (Radii of one slack share a probe plan, so the widest of slack 1 pays if any does.)
    int one_flip = meta.max_distance;
    while (one_flip < st->max_radius && sx::probe_shape(layout, one_flip + 1).slack <= 1) one_flip++;
    if (one_flip > meta.max_distance && probes_at(index, layout, one_flip))
        st->probe_stages[st->nstages++] = one_flip;
    else
        one_flip = meta.max_distance;
    // Each plan's widest radius, from the narrowest plan beyond that.
    const double rows = index_rows(index, layout);
    for (int r = one_flip + 1; r <= st->max_radius; ++r) {
        const int slack = sx::probe_shape(layout, r).slack;
        int widest = r;
        while (widest < st->max_radius && sx::probe_shape(layout, widest + 1).slack == slack) widest++;
        if (rows * simhash::random_within_probability(widest) >= kNearestWanted) {
            if (probes_at(index, layout, widest)) st->probe_stages[st->nstages++] = widest;
            break;
        }
        r = widest;
    }
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
            start_nearest(scan->indexRelation, st, drive.radius);
            MemoryContextSwitchTo(old);
            return;
        }
        collect(scan->indexRelation, st, drive.center, drive.radius, -1, 64);
    } else if (by_distance) {
        start_nearest(scan->indexRelation, st, 64);
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
// returned: from the probes while rows within their radius (max_distance,
// then each of probe_stages) may remain, then from sweeps of table 0 up to
// max_radius.
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
    // The probes reach probe_radius; a sweep, every row; none beyond max_radius.
    int radius = st->probing ? st->probe_radius : st->max_radius;
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
        // Beyond this radius: from the probes' next stage, then from sweeps.
        if (st->stage < st->nstages)
            st->probe_radius = st->probe_stages[st->stage++];
        else
            st->probing = false;
        st->batch = 0;
        ItemPointerSet(&st->after.tid, MaxBlockNumber, MaxOffsetNumber);
        st->after.rank = rank_of(radius, st->after.tid);
    } else {
        st->exhausted = true;
    }
    MemoryContextSwitchTo(old);
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

}  // namespace index_scan

using namespace index_scan;

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
