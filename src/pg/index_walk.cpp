// The passes over the tables: one per table's prefix probe (or a sweep of
// one table), each walking its key range from the directory or the root,
// pruning subtrees whose shared key bits are too far from the query, and
// filtering each leaf it reads (Leaf::near) into the scan's hits.
#include "index_scan.hpp"

#include <algorithm>

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
}

#include "hamming.hpp"

namespace index_scan {

namespace {

// The least entry key a pass may report.
sx::EntryKey first_key(const Pass &p) { return p.resumed ? p.from : sx::EntryKey{p.lo, 0, 0}; }

// Whether an earlier probe pass of the same scan reports the row of `key`:
// its key there lies in one of that table's probe ranges. A row within k of
// the query shares a prefix with it in several tables (most near-duplicates
// in three of four), so without this every later pass would collect it again
// for finish_hits to drop. Exact only under an MVCC snapshot: a row the
// snapshot sees was committed before it, so its entries were in every table
// before the scan began (a dirty snapshot can see an insert that has reached
// only some tables, hence `earlier` is set for MVCC scans only).
bool found_earlier(const Pass &p, uint64 key) {
    for (int u = 0; u < p.nearlier; ++u) {
        const EarlierTable &e = p.earlier[u];
        uint64 x = (key ^ e.prefix) & e.mask;
        if (x == 0 || (e.slack > 0 && __builtin_popcountll(x) <= e.slack)) return true;
    }
    return false;
}

// The key bits every key in [a, b] has: their common prefix.
uint64 shared_bits(uint64 a, uint64 b) {
    int common = a == b ? 64 : __builtin_clzll(a ^ b);
    return common == 0 ? 0 : ~uint64{0} << (64 - common);
}

// What the earlier probe passes of the same scan tell of the keys of a range
// that share the bits `shared` of key a: kAllFoundEarlier when those bits
// leave some earlier table's prefix within its slack of the query's (every
// such key is found_earlier), else how many bits, outside the shared ones,
// each key the pass must report still differs from the query in. A key this
// pass reports is in none of an earlier table's probe ranges, so it differs
// from the query in more than that table's slack of its prefix bits; those
// the shared bits do not show are in the prefix's other bits. Prefixes of
// different tables may overlap (two of five blocks), so only those whose
// other bits are disjoint count. Where many rows share bits that lead one
// table's keys and trail another's, the second probe's range is as wide as
// the first's, but its subtrees lie inside the first's prefix, or differ
// from the query in it.
constexpr int kAllFoundEarlier = -1;
int earlier_differences(const Pass &p, uint64 a, uint64 shared) {
    uint64 counted = 0;
    int differences = 0;
    for (int u = 0; u < p.nearlier; ++u) {
        const EarlierTable &e = p.earlier[u];
        uint64 known = (a ^ e.prefix) & e.mask & shared;
        int seen = known == 0 ? 0 : __builtin_popcountll(known);
        if (seen > e.slack) continue;  // differences enough on shared bits: counted already
        uint64 open = e.mask & ~shared;
        int needed = e.slack + 1 - seen;
        if (open == 0 || (needed > 1 && __builtin_popcountll(open) < needed)) return kAllFoundEarlier;
        if ((open & counted) == 0) {
            counted |= open;
            differences += needed;
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
            if (p.dir.n == 0) p.descended++;
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
    // (Both ends through the guide: a crowded prefix spans ~1,000 entries.)
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

// Runs up to kPassGroup passes, from the directory or a root
// (first_children). A probe's leaves, one per table, are rarely in the CPU
// cache at 10M rows, and each is a chain of misses (page header, directory,
// entries): the chains run side by side, by first pinning every pass's first
// page and loading its head, then loading the entries each will read, and
// only then reading any. Returns how many passes it finished: fewer when a
// streaming scan paused (st->paused).
constexpr int kPassGroup = 16;
int run_group(Relation index, Pass *passes, int npasses, ScanState *st) {
    SimhashCache *cache = simhash_cache(index);
    Child *children[kPassGroup];
    size_t nchildren[kPassGroup];
    Buffer first[kPassGroup];
    uint32 hops = 0;
    for (int i = 0; i < npasses; ++i) {
        passes[i].dir = simhash_directory(cache, passes[i].table);
        nchildren[i] = first_children(passes[i], cache->meta, st, &children[i]);
        // Pinning reads the buffer's descriptor, rarely in the CPU cache at 10M rows.
        if (nchildren[i] > 0 && children[i][0].recent != nullptr && *children[i][0].recent > 0)
            __builtin_prefetch(GetBufferDescriptor(*children[i][0].recent - 1));
        // A table that had no directory may have grown one level since
        // (counted once for its passes beyond max_distance).
        if (passes[i].dir.n == 0 && passes[i].table < cache->meta.tables && (i == 0 || passes[i - 1].table != passes[i].table))
            hops++;
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
    uint32 descended = 0;
    for (; done < npasses && !st->paused; ++done) {
        visit_children(passes[done], children[done], nchildren[done], st, first[done]);
        pfree(children[done]);
        hops += passes[done].hops;
        descended += passes[done].descended;
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
    static_cast<SimhashCache *>(index->rd_amcache)->descended += descended;
    return done;
}

}  // namespace

// Runs the passes in groups of kPassGroup: a probe beyond max_distance may
// have hundreds, and a group's first pages are pinned together.
int run_passes(Relation index, Pass *passes, int npasses, ScanState *st) {
    int done = 0;
    while (done < npasses && !st->paused) done += run_group(index, passes + done, std::min(npasses - done, kPassGroup), st);
    return done;
}

namespace {

// Skewed fingerprints can give one table's prefix range a thousand leaves and
// another's one (a k = 6 probe of the PEP fingerprints read 70 leaves of one
// table, 1 of another). A probe rules out more of its subtrees the more probes
// ran before it (earlier_differences: each earlier prefix is one more bit in
// which a row it must report differs), so the tables' probes run from the
// narrowest range to the widest, by the directory entries the query's own
// prefix spans in each (pages of one level in every table, else no order is
// drawn); ties keep probe_order. (Ordering by widths within a factor of two
// as equal read 1.4-2.7% more pages of the PEP fingerprints' index; on random
// data widths differ by a page boundary at most, and the pages read were the
// same either way.)
void order_by_width(Relation index, const sx::Layout &layout, const sx::ProbeShape &shape, const uint64 *qkeys,
                    int *order) {
    SimhashCache *cache = simhash_cache(index);
    size_t width[sx::kMaxTables];
    int level = -1;
    for (int i = 0; i < layout.tables; ++i) {
        const int t = order[i];
        SimhashDirectory dir = simhash_directory(cache, t);
        if (dir.n == 0 || (i > 0 && dir.child_level != level)) return;
        level = dir.child_level;
        sx::KeyRange r = sx::prefix_range(qkeys[t], shape.bits[t]);
        width[i] = simhash_directory_find(dir, {r.hi, MaxBlockNumber, MaxOffsetNumber}) -
                   simhash_directory_find(dir, {r.lo, 0, 0});
    }
    for (int i = 1; i < layout.tables; ++i)
        for (int j = i; j > 0 && width[j] < width[j - 1]; --j) {
            std::swap(width[j], width[j - 1]);
            std::swap(order[j], order[j - 1]);
        }
}

// Leaves of one table, near enough for sx::plan_scan: the index's pages
// shared by its tables (internal pages are about 0.5% of them).
double leaves_per_table(Relation index, const sx::Layout &layout) {
    return static_cast<double>(RelationGetNumberOfBlocks(index)) / layout.tables;
}

sx::ScanPlan scan_plan(Relation index, const sx::Layout &layout, int radius) {
    if (radius <= layout.max_distance) return sx::plan_scan(layout, radius, 0);
    sx::ScanPlan plan = sx::plan_scan(layout, radius, leaves_per_table(index, layout));
    if (simhash_test_probe_always && plan.probes <= sx::kMaxProbes && plan.fraction < 1.0) plan.sweep = false;
    return plan;
}

}  // namespace

bool probes_at(Relation index, const sx::Layout &layout, int radius) { return !scan_plan(index, layout, radius).sweep; }

// The passes that find every entry within `radius` of `center`: per table,
// one probe of each prefix range within the plan's slack of the query's
// (sx::plan_scan; one range within max_distance), in key order; or, when the
// probes would read more, a sweep of table 0 (still pruned by radius). Under
// an MVCC snapshot the tables run narrowest first (order_by_width), and each
// pass learns the tables probed before its own (found_earlier). The passes
// and what they share are one allocation.
int plan_passes(Relation index, const ScanState *st, const SimhashMeta &meta, const sx::Layout &layout, uint64 center,
                int radius, int above, int upto, Pass **out) {
    const sx::ScanPlan plan = scan_plan(index, layout, radius);
    if (plan.sweep) {
        Pass *p = static_cast<Pass *>(palloc(sizeof(Pass)));
        *p = {index, &layout, 0, 0, ~uint64{0}, sx::table_key(layout, 0, center), radius, above, upto, 0};
        *out = p;
        return 1;
    }
    const int tables = meta.tables, slack = plan.shape.slack;
    // Each table's query key, and its probe prefix as fingerprint bits (mask
    // and value), for the later tables' found_earlier.
    uint64 qkeys[sx::kMaxTables], fp_masks[sx::kMaxTables], fp_prefixes[sx::kMaxTables];
    for (int t = 0; t < tables; ++t) {
        qkeys[t] = sx::table_key(layout, t, center);
        if (!st->mvcc) continue;
        const int bits = plan.shape.bits[t];
        const uint64 mask = bits >= 64 ? ~uint64{0} : ~(~uint64{0} >> bits);
        fp_masks[t] = sx::table_fingerprint(layout, t, mask);
        fp_prefixes[t] = center & fp_masks[t];
    }
    int order[sx::kMaxTables];
    sx::probe_order(layout, order);
    if (st->mvcc) order_by_width(index, layout, plan.shape, qkeys, order);
    size_t most_variants = 1;
    for (int t = 0; t < tables && slack > 0; ++t) most_variants = Max(most_variants, sx::prefix_variants(plan.shape.bits[t], slack));
    Size earlier_bytes = st->mvcc ? sizeof(EarlierTable) * tables * tables : 0;
    char *block = static_cast<char *>(MemoryContextAllocHuge(CurrentMemoryContext, sizeof(Pass) * plan.probes + earlier_bytes));
    Pass *passes = reinterpret_cast<Pass *>(block);
    EarlierTable *earlier = reinterpret_cast<EarlierTable *>(block + sizeof(Pass) * plan.probes);
    sx::KeyRange one;  // (within max_distance: one range a table)
    sx::KeyRange *ranges = most_variants == 1 ? &one : static_cast<sx::KeyRange *>(palloc(sizeof(sx::KeyRange) * most_variants));
    int npasses = 0;
    for (int i = 0; i < tables; ++i) {
        const int t = order[i];
        const uint64 qkey = qkeys[t];
        const int bits = plan.shape.bits[t];
        EarlierTable *e = st->mvcc ? earlier + static_cast<Size>(i) * tables : nullptr;
        for (int u = 0; st->mvcc && u < i; ++u)
            e[u] = {sx::table_key(layout, t, fp_masks[order[u]]), sx::table_key(layout, t, fp_prefixes[order[u]]), slack};
        size_t variants = 1;
        if (slack == 0) {
            ranges[0] = sx::prefix_range(qkey, bits);
        } else {
            variants = sx::prefix_variants(bits, slack);
            sx::variant_ranges(qkey, bits, slack, ranges);
        }
        for (size_t v = 0; v < variants; ++v) {
            CHECK_FOR_INTERRUPTS();
            Pass &p = passes[npasses++];
            p = {index, &layout, t, ranges[v].lo, ranges[v].hi, qkey, radius, above, upto, 0};
            p.earlier = e;
            p.nearlier = st->mvcc ? i : 0;
        }
    }
    if (ranges != &one) pfree(ranges);
    *out = passes;
    return npasses;
}

void free_passes(Pass *passes) { pfree(passes); }

// Collects every entry within `radius` of `center` (and inside all balls,
// and in the distance window) in one walk.
void collect(Relation index, ScanState *st, uint64 center, int radius, int above, int upto) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    Pass *passes;
    int npasses = plan_passes(index, st, meta, layout, center, radius, above, upto, &passes);
    run_passes(index, passes, npasses, st);
    free_passes(passes);
}

// Appends the rows whose fingerprint is NULL.
void collect_nulls(Relation index, ScanState *st) {
    SimhashMeta meta = simhash_read_meta(index);
    sx::Layout layout = simhash_layout(meta);
    Pass p{index, &layout, meta.tables, 0, ~uint64{0}, 0, 64, -1, 64, 0};
    run_passes(index, &p, 1, st);
}

}  // namespace index_scan
