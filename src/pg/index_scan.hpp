// What the scan's files share: its state, its hits, and the plan of one pass
// over a table. index_scan.cpp holds the access method's calls and the
// batches; index_walk.cpp, the passes that walk the tables; index_hits.cpp,
// collecting and ordering the hits; index_recheck.cpp, the index-only check.
#pragma once
#include "index.hpp"

#include <algorithm>

extern "C" {
#include "access/itup.h"
#include "nodes/tidbitmap.h"
#include "utils/snapshot.h"
}

#include "tid_sort.hpp"

// (Hidden: the library's own calls between these files bind directly, not
// through the PLT, and may be inlined.)
#pragma GCC visibility push(hidden)
namespace index_scan {

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

inline uint64 rank_of(int distance, const ItemPointerData &tid) {
    return (static_cast<uint64>(distance) << 48) |
           (static_cast<uint64>(ItemPointerGetBlockNumberNoCheck(&tid)) << 16) | ItemPointerGetOffsetNumberNoCheck(&tid);
}
constexpr uint64 kTidBits = sx::kTidSortBits;  // a rank's TID: the bits sort_tids sorts on

struct Ball {
    uint64 center;
    int radius;
};

struct Pass;

// The rows a table's probe passes report: those whose key there has, under
// `mask` (the table's probe prefix), at most `slack` bits differing from
// `prefix` (the query's); each pass of that table takes one prefix within
// the slack. Written in bits of another table's keys.
struct EarlierTable {
    uint64 mask, prefix;
    int slack;
};

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
    int probe_radius; // ORDER BY batches: the probes' radius now (max_distance, then the stages)
    int probe_stages[2];  // the wider radii they take, in turn, before the sweeps
    int nstages, stage;
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
inline constexpr auto tid_less = [](const Hit &a, const Hit &b) { return (a.rank & kTidBits) < (b.rank & kTidBits); };
inline constexpr auto distance_less = [](const Hit &a, const Hit &b) { return a.rank < b.rank; };

// A bitmap scan's hits go to its bitmap each time a chunk of them is found,
// and at the end: sorted by TID, so that each heap block's bitmap page is
// looked up once for its run of rows, not once per row. Besides the bitmap,
// which work_mem bounds (lossy pages) however many rows match, the scan then
// holds a chunk and one leaf's hits; collecting them all first took 40 bytes
// per row. A non-MVCC scan adds its hits at the end only: it may find a row
// in two tables, and the count returned (EXPLAIN's rows) is of rows.
constexpr Size kBitmapChunk = Size{1} << 16;

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
    uint32 descended = 0;  // internal pages read from the root (the table has no directory)
    // A streaming pass that paused (ScanState::paused) resumes at `from`, the
    // high key of the last leaf it read. Splits add leaf boundaries and
    // nothing removes one, so the walk descends to the leaf that begins
    // there, or to one left of it that a split made (through a stale
    // directory): read no leaf whose high key is `from` or below.
    bool resumed = false;
    sx::EntryKey from{0, 0, 0};
    // The tables before this pass's own in the plan's order (see
    // found_earlier), in bits of this pass's keys: a row within the radius is
    // reported by the first table in that order whose probe ranges hold it.
    // Translated once per plan_passes (each ORDER BY batch's too), as a walk
    // tests them for every subtree and leaf it reads.
    const EarlierTable *earlier = nullptr;
    int nearlier = 0;
    SimhashDirectory dir{nullptr, nullptr, nullptr, 0, -1, nullptr, 0};  // the table's, set by run_passes
};

// Puts h in place of the farthest entry of the full max-heap: one sift down
// instead of a pop and a push.
inline void replace_top(Hit *heap, Size n, const Hit &h) {
    Size i = 0;
    for (Size c = 1; c < n; c = 2 * i + 1) {
        if (c + 1 < n && heap[c].rank < heap[c + 1].rank) c++;
        if (heap[c].rank < h.rank) break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = h;
}

// Called for every entry a walk finds within its radius (inline: a k = 6
// query of the PEP fingerprints adds ~10,000).
inline void add_hit(ScanState *st, const sx::EntryKey &e, BlockNumber leaf, uint64 fp, int distance,
                    bool null_fp = false) {
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

// index_hits.cpp
void add_tids_to_bitmap(ScanState *st);
// The distance of a hit for ORDER BY argument i, meaningless when either is NULL.
int order_distance(const ScanState *st, const Hit &h, int i);
void sort_hits_by_tid(ScanState *st);
void finish_hits(ScanState *st);

// index_walk.cpp
// The passes that find every entry within `radius` of `center`, in
// *passes (palloc'd, with what they share; the caller frees it with
// free_passes).
int plan_passes(Relation index, const ScanState *st, const SimhashMeta &meta, const sx::Layout &layout, uint64 center,
                int radius, int above, int upto, Pass **passes);
void free_passes(Pass *passes);
// Whether a scan at `radius` probes rather than sweeps (sx::plan_scan on this
// index's size).
bool probes_at(Relation index, const sx::Layout &layout, int radius);
int run_passes(Relation index, Pass *passes, int npasses, ScanState *st);
void collect(Relation index, ScanState *st, uint64 center, int radius, int above, int upto);
void collect_nulls(Relation index, ScanState *st);

// index_recheck.cpp
void release_pin(ScanState *st);
bool recheck_entry(Relation index, ScanState *st, Size i);

// Under old_snapshot_threshold VACUUM may remove entries of rows a snapshot
// older than the threshold still sees; a page changed since that snapshot was
// taken may have lost some (or, above the leaves, a summary may have been
// narrowed to the entries left), so reading it ends the scan with "snapshot
// too old", as B-tree does, instead of an answer short of those rows.
inline void refuse_if_too_old(const ScanState *st, Relation index, Page page) {
    TestForOldSnapshot(st->snapshot, index, page);
}

}  // namespace index_scan
#pragma GCC visibility pop
