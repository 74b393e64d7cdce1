// Page utilities and the tree insert of the simhash index.
#include "index.hpp"

extern "C" {
#include "miscadmin.h"
#include "storage/lmgr.h"
}

void simhash_init_page(Page page, uint16 flags, uint16 level, uint16 table) {
    PageInit(page, BLCKSZ, sizeof(SimhashPageOpaque));
    SimhashPageOpaque *op = page_opaque(page);
    op->flags = flags;
    op->level = level;
    op->table = table;
    op->has_high = 0;
    op->right = InvalidBlockNumber;
    sx::leaf_put(op->low, 0, {0, 0, 0});
    sx::leaf_put(op->high, 0, {0, 0, 0});
    if (flags & kPageLeaf) leaf_set_bytes(page, sx::leaf_init(page_area(page)));
}

SimhashMeta simhash_read_meta(Relation index) {
    if (index->rd_amcache != nullptr) return static_cast<SimhashCache *>(index->rd_amcache)->meta;
    Buffer buf = ReadBuffer(index, kMetaBlock);
    LockBuffer(buf, BUFFER_LOCK_SHARE);
    SimhashMeta meta;
    memcpy(&meta, PageGetContents(BufferGetPage(buf)), sizeof(meta));
    UnlockReleaseBuffer(buf);
    if (meta.magic == kSimhashIndexMagic && meta.version < kSimhashIndexVersion)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("simhash index \"%s\" has an older page format (version %u, this library reads %u)",
                               RelationGetRelationName(index), meta.version, kSimhashIndexVersion),
                        errhint("REINDEX INDEX %s;", RelationGetRelationName(index))));
    sx::Layout layout;
    if (meta.magic != kSimhashIndexMagic || meta.version != kSimhashIndexVersion ||
        !sx::stored_layout(meta.max_distance, meta.blocks, meta.tables, meta.order, meta.guaranteed, &layout))
        ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                        errmsg("index \"%s\" has a corrupt simhash metapage", RelationGetRelationName(index))));
    simhash_check_column_type(index);
    // The metapage never changes after the build: cache it for the relcache entry's life.
    // (The directory is read on the first scan: inserts and the planner do not need it.)
    uint32 deferral = simhash_directory_deferral(RelationGetNumberOfBlocks(index), meta.tables);
    SimhashCache *cache = static_cast<SimhashCache *>(MemoryContextAllocZero(index->rd_indexcxt, sizeof(SimhashCache)));
    cache->meta = meta;
    cache->read_directory_after = deferral;
    index->rd_amcache = cache;
    return meta;
}

// simhash_read_meta checked the parts.
sx::Layout simhash_layout(const SimhashMeta &meta) {
    sx::Layout layout;
    if (!sx::stored_layout(meta.max_distance, meta.blocks, meta.tables, meta.order, meta.guaranteed, &layout))
        elog(ERROR, "simhash metapage layout is invalid");
    return layout;
}

void simhash_meta_set_layout(SimhashMeta *meta, const sx::Layout &layout) {
    meta->max_distance = layout.max_distance;
    meta->tables = layout.tables;
    meta->blocks = layout.blocks;
    memcpy(meta->order, layout.order, sizeof(meta->order));
    memcpy(meta->guaranteed, layout.guaranteed, sizeof(meta->guaranteed));
}

// A new page at the end of the relation, pinned and exclusively locked. Pages
// are never freed (no page deletion), so there is no free-space map to search.
Buffer simhash_new_buffer(Relation index) {
    bool local = RELATION_IS_LOCAL(index);
    if (!local) LockRelationForExtension(index, ExclusiveLock);
    Buffer buf = ReadBuffer(index, P_NEW);
    if (!local) UnlockRelationForExtension(index, ExclusiveLock);
    LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
    return buf;
}

// A leaf's entries and one more, unpacked (segment first, sorted, then the
// tail and the new entry), in palloc'd room for twice as many: the second
// half takes their merge.
struct LeafWith {
    sx::EntryKey *entries;
    size_t n, np;
    bool packs;  // all of them fit under the repack limit
};

static LeafWith leaf_with(Page page, const sx::EntryKey &key) {
    sx::Leaf leaf = page_leaf(page);
    LeafWith w;
    w.entries = static_cast<sx::EntryKey *>(palloc(2 * (leaf.size() + 1) * sizeof(sx::EntryKey)));
    w.n = leaf.unpack(w.entries);
    w.np = leaf.packed_count();
    w.entries[w.n++] = key;
    sx::PackSizer sizer;
    for (size_t i = 0; i < w.n; ++i) sizer.add(w.entries[i]);
    w.packs = sizer.bytes() <= leaf_repack_limit();
    return w;
}

static bool tail_has_room(Page page) { return leaf_bytes(page) + sx::kLeafEntrySize <= page_area_capacity(); }

// True when leaf `page` must split before `key` goes in: its tail is full and
// its entries with `key` do not repack under the limit.
static bool leaf_must_split(Page page, const sx::EntryKey &key) {
    if (tail_has_room(page)) return false;
    LeafWith w = leaf_with(page, key);
    pfree(w.entries);
    return !w.packs;
}

// True when `page` must split before `key` can go below it.
static bool needs_split(Page page, const sx::EntryKey &key) {
    if (page_opaque(page)->flags & kPageLeaf) return leaf_must_split(page, key);
    return internal_count(page) >= internal_capacity();
}

// Puts `key` into exclusively locked leaf `buf`: appended to the tail, or,
// once per tail's worth of appends, the leaf rewritten with every entry
// packed (a full-page change through GenericXLog). The leaf is unpacked once
// for both the decision and the rewrite. False, with nothing changed, when
// the leaf must split first.
static bool leaf_try_add(Relation index, Buffer buf, const sx::EntryKey &key) {
    Page page = BufferGetPage(buf);
    if (tail_has_room(page)) {
        simhash_leaf_append(index, buf, key);
        return true;
    }
    LeafWith w = leaf_with(page, key);
    if (!w.packs) {
        pfree(w.entries);
        return false;
    }
    sx::EntryKey *sorted = w.entries + w.n;
    sx::merge_segment_and_tail(w.entries, w.np, w.n, sorted);
    GenericXLogState *state = GenericXLogStart(index);
    page = GenericXLogRegisterBuffer(state, buf, 0);
    leaf_set_bytes(page, sx::leaf_write(sorted, w.n, nullptr, 0, page_area(page)));
    GenericXLogFinish(state);
    pfree(w.entries);
    return true;
}

pg_attribute_noreturn() void simhash_bad_right_link(Relation index, BlockNumber blk) {
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                    errmsg("simhash index \"%s\" is corrupt: the right-link of block %u does not lead to higher keys",
                           RelationGetRelationName(index), blk)));
}

Buffer simhash_step_right(Relation index, Buffer buf, int mode) {
    Page page = BufferGetPage(buf);
    SimhashPageOpaque *op = page_opaque(page);
    BlockNumber blk = BufferGetBlockNumber(buf), right = op->right;
    sx::EntryKey high = page_high(page);
    bool ok = op->has_high && right != InvalidBlockNumber && page_range_ok(page);
    UnlockReleaseBuffer(buf);
    if (!ok) simhash_bad_right_link(index, blk);
    CHECK_FOR_INTERRUPTS();
    Buffer next = ReadBuffer(index, right);
    LockBuffer(next, mode);
    simhash_check_page(index, next);
    if (sx::compare_keys(page_low(BufferGetPage(next)), high) != 0) {
        UnlockReleaseBuffer(next);
        simhash_bad_right_link(index, blk);
    }
    return next;
}

pg_attribute_noreturn() void simhash_not_the_child(Relation index, int table, BlockNumber blk) {
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                    errmsg("simhash index \"%s\" is corrupt: table %d, block %u is not the page its parent points to",
                           RelationGetRelationName(index), table, blk)));
}

const char *simhash_page_shape_problem(Page page) {
    if (PageIsNew(page) || !page_is_ours(page)) return "not a simhash index page";
    const SimhashPageOpaque *op = page_opaque(page);
    bool leaf = op->flags == kPageLeaf && op->level == 0;
    bool internal = op->flags == kPageInternal && op->level > 0;
    if (!leaf && !internal) return "neither a leaf nor an internal page";
    size_t lower = ((PageHeader)page)->pd_lower;
    if (lower < page_area_offset() || lower - page_area_offset() > page_area_capacity() ||
        (internal && (lower - page_area_offset()) % sx::kInternalEntrySize != 0))
        return "entry area size";
    return leaf ? sx::leaf_header_problem(page_area(page), leaf_bytes(page)) : nullptr;
}

void simhash_check_page(Relation index, Buffer buf) {
    const char *what = simhash_page_shape_problem(BufferGetPage(buf));
    if (what == nullptr) return;
    BlockNumber blk = BufferGetBlockNumber(buf);
    UnlockReleaseBuffer(buf);
    ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                    errmsg("simhash index \"%s\" is corrupt: block %u: %s", RelationGetRelationName(index), blk, what)));
}

namespace {

// Where a descent for `key` goes from internal page `buf`.
struct Downlink {
    BlockNumber parent;
    uint16 level, table;
    sx::InternalEntry entry;
    size_t pos;
};

Downlink downlink_for(Buffer buf, const sx::EntryKey &key) {
    Page page = BufferGetPage(buf);
    size_t pos = sx::internal_find(page_area(page), internal_count(page), key);
    return {BufferGetBlockNumber(buf), page_opaque(page)->level, page_opaque(page)->table,
            sx::internal_get(page_area(page), pos), pos};
}

// The downlink's child, pinned and locked in `mode`. A child is never a root
// (the only page whose level changes) and keeps its low key when it splits, so
// it is one level down in the same table from its low key on: levels then fall
// on every step and a descent ends. Anything else is corruption, which must
// not become a descent that never ends, or a wait on the parent's own lock by
// a descent that holds it.
Buffer lock_child(Relation index, const Downlink &d, int mode) {
    if (d.entry.child == d.parent || d.entry.child == kMetaBlock) simhash_not_the_child(index, d.table, d.entry.child);
    CHECK_FOR_INTERRUPTS();
    Buffer buf = ReadBuffer(index, d.entry.child);
    LockBuffer(buf, mode);
    simhash_check_page(index, buf);
    if (!page_is_child(BufferGetPage(buf), d.table, d.level - 1, d.entry.low)) {
        UnlockReleaseBuffer(buf);
        simhash_not_the_child(index, d.table, d.entry.child);
    }
    return buf;
}

}  // namespace

// Lets the summary of downlink `pos` of exclusively locked internal page
// `buf` allow `key`, before the key lands below it.
static void weaken_downlink(Relation index, Buffer buf, size_t pos, uint64 key) {
    sx::InternalEntry e = sx::internal_get(page_area(BufferGetPage(buf)), pos);
    if (sx::summary_covers(e, key, key)) return;
    sx::summary_add(&e, key, key);
    GenericXLogState *state = GenericXLogStart(index);
    Page page = GenericXLogRegisterBuffer(state, buf, 0);
    sx::internal_put(page_area(page), pos, e);
    GenericXLogFinish(state);
}

// An insert (`inserting`) weakens the summary of each downlink it follows
// that does not allow its key yet, under an exclusive lock taken only then:
// once summaries have seen a few keys of their ranges, that is rare.
Buffer simhash_find_leaf(Relation index, BlockNumber root, const sx::EntryKey &key, bool inserting) {
    int mode = BUFFER_LOCK_SHARE;
    Buffer buf = ReadBuffer(index, root);
    LockBuffer(buf, mode);
    simhash_check_page(index, buf);
    for (;;) {
        Page page = BufferGetPage(buf);
        if (beyond_high(page, key)) {
            buf = simhash_step_right(index, buf, mode);
            continue;
        }
        if (page_opaque(page)->flags & kPageLeaf) return buf;
        Downlink d = downlink_for(buf, key);
        bool weakened = false;
        if (inserting && !sx::summary_covers(d.entry, key.key, key.key)) {
            if (mode == BUFFER_LOCK_SHARE) {
                // (The page may split meanwhile: look again.)
                mode = BUFFER_LOCK_EXCLUSIVE;
                LockBuffer(buf, BUFFER_LOCK_UNLOCK);
                LockBuffer(buf, mode);
                simhash_check_page(index, buf);
                continue;
            }
            weaken_downlink(index, buf, d.pos, key.key);
            weakened = true;
        }
        UnlockReleaseBuffer(buf);
        if (weakened) simhash_test_pause();
        mode = BUFFER_LOCK_SHARE;
        buf = lock_child(index, d, mode);
    }
}

// Optimistic insert: share locks down to the leaf (exclusive on an internal
// page whose downlink's summary must allow the key), then an exclusive lock
// on the leaf; succeeds when the leaf has room (almost always).
static bool insert_optimistic(Relation index, BlockNumber root, const sx::EntryKey &key) {
    Buffer buf = simhash_find_leaf(index, root, key, true);
    LockBuffer(buf, BUFFER_LOCK_UNLOCK);
    simhash_test_pause();
    LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
    for (;;) {
        Page page = BufferGetPage(buf);
        // Only the root changes kind (a leaf root splits into an internal root).
        if (!(page_opaque(page)->flags & kPageLeaf)) {
            UnlockReleaseBuffer(buf);
            return false;
        }
        if (!beyond_high(page, key)) break;
        buf = simhash_step_right(index, buf, BUFFER_LOCK_EXCLUSIVE);
    }
    bool added = leaf_try_add(index, buf, key);
    UnlockReleaseBuffer(buf);
    return added;
}

// A leaf's two halves, computed before anything is written or allocated, so
// that a leaf that cannot split (corrupt) errors out with the index unchanged.
struct LeafHalves {
    uint8 *left, *right;
    sx::LeafSplit split;
};

static LeafHalves plan_leaf_split(Relation index, Buffer buf) {
    Page page = BufferGetPage(buf);
    sx::Leaf leaf = page_leaf(page);
    LeafHalves h;
    h.left = static_cast<uint8 *>(palloc(page_area_capacity()));
    h.right = static_cast<uint8 *>(palloc(page_area_capacity()));
    sx::EntryKey *scratch = static_cast<sx::EntryKey *>(palloc(2 * (leaf.size() + 1) * sizeof(sx::EntryKey)));
    // Each half must keep room for the append that follows the split.
    if (!sx::leaf_split(page_area(page), leaf_bytes(page), leaf_repack_limit(),
                        page_area_capacity() - sx::kLeafEntrySize, scratch, h.left, h.right, &h.split))
        ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
                        errmsg("simhash index \"%s\": leaf %u cannot be split", RelationGetRelationName(index),
                               BufferGetBlockNumber(buf))));
    pfree(scratch);
    return h;
}

// Splits the entries of `src` (a leaf, whose halves `halves` holds, or an
// internal page) between `left` and `right`; returns the separator.
static sx::EntryKey split_entries(Page src, Page left, Page right, LeafHalves *halves) {
    if (page_opaque(src)->flags & kPageLeaf) {
        memcpy(page_area(left), halves->left, halves->split.left_bytes);
        leaf_set_bytes(left, halves->split.left_bytes);
        memcpy(page_area(right), halves->right, halves->split.right_bytes);
        leaf_set_bytes(right, halves->split.right_bytes);
        pfree(halves->left);
        pfree(halves->right);
        return halves->split.separator;
    }
    size_t n = internal_count(src), nl, nr;
    if (left != src) memcpy(page_area(left), page_area(src), n * sx::kInternalEntrySize);
    sx::EntryKey sep = sx::internal_split(page_area(left), n, page_area(right), &nl, &nr);
    internal_set_count(left, nl);
    internal_set_count(right, nr);
    return sep;
}

sx::InternalEntry simhash_downlink(Page page, const sx::EntryKey &low, BlockNumber blk) {
    sx::InternalEntry down{low, blk, sx::kNoKeysAnd, sx::kNoKeysOr};
    if (page_opaque(page)->flags & kPageLeaf) {
        sx::Leaf leaf = page_leaf(page);
        if (leaf.size() > 0) sx::summary_add(&down, leaf.header().keys_and, leaf.header().keys_or);
        return down;
    }
    for (size_t i = 0, n = internal_count(page); i < n; ++i) {
        sx::InternalEntry e = sx::internal_get(page_area(page), i);
        sx::summary_add(&down, e.keys_and, e.keys_or);
    }
    return down;
}

// The root stays at its block: its entries move to two new pages and it
// becomes their parent, one level up. One record of three pages.
static void split_root(Relation index, Buffer root) {
    LeafHalves halves{};
    if (page_opaque(BufferGetPage(root))->flags & kPageLeaf) halves = plan_leaf_split(index, root);
    Buffer lbuf = simhash_new_buffer(index);
    Buffer rbuf = simhash_new_buffer(index);
    GenericXLogState *state = GenericXLogStart(index);
    Page page = GenericXLogRegisterBuffer(state, root, 0);
    Page left = GenericXLogRegisterBuffer(state, lbuf, GENERIC_XLOG_FULL_IMAGE);
    Page right = GenericXLogRegisterBuffer(state, rbuf, GENERIC_XLOG_FULL_IMAGE);
    SimhashPageOpaque *rop = page_opaque(page);
    uint16 kind = rop->flags & (kPageLeaf | kPageInternal);
    simhash_init_page(left, kind, rop->level, rop->table);
    simhash_init_page(right, kind, rop->level, rop->table);
    sx::EntryKey sep = split_entries(page, left, right, &halves);
    sx::EntryKey low = page_low(page);
    sx::leaf_put(page_opaque(left)->low, 0, low);
    sx::leaf_put(page_opaque(left)->high, 0, sep);
    page_opaque(left)->has_high = 1;
    page_opaque(left)->right = BufferGetBlockNumber(rbuf);
    sx::leaf_put(page_opaque(right)->low, 0, sep);
    uint16 level = rop->level + 1, table = rop->table;
    simhash_init_page(page, kPageInternal, level, table);
    sx::leaf_put(page_opaque(page)->low, 0, low);
    sx::internal_put(page_area(page), 0, simhash_downlink(left, low, BufferGetBlockNumber(lbuf)));
    sx::internal_put(page_area(page), 1, simhash_downlink(right, sep, BufferGetBlockNumber(rbuf)));
    internal_set_count(page, 2);
    GenericXLogFinish(state);
    UnlockReleaseBuffer(lbuf);
    UnlockReleaseBuffer(rbuf);
}

// Splits full child `cbuf` (downlink at `pos` of exclusively locked `pbuf`,
// which has room): parent, child and the new right sibling in one record.
// Returns the buffer (still locked) whose range holds `key`; releases the other.
static Buffer split_child(Relation index, Buffer pbuf, size_t pos, Buffer cbuf, const sx::EntryKey &key) {
    LeafHalves halves{};
    if (page_opaque(BufferGetPage(cbuf))->flags & kPageLeaf) halves = plan_leaf_split(index, cbuf);
    Buffer rbuf = simhash_new_buffer(index);
    GenericXLogState *state = GenericXLogStart(index);
    Page parent = GenericXLogRegisterBuffer(state, pbuf, 0);
    Page child = GenericXLogRegisterBuffer(state, cbuf, 0);
    Page right = GenericXLogRegisterBuffer(state, rbuf, GENERIC_XLOG_FULL_IMAGE);
    SimhashPageOpaque *cop = page_opaque(child);
    simhash_init_page(right, cop->flags & (kPageLeaf | kPageInternal), cop->level, cop->table);
    sx::EntryKey sep = split_entries(child, child, right, &halves);
    SimhashPageOpaque *rop = page_opaque(right);
    sx::leaf_put(rop->low, 0, sep);
    memcpy(rop->high, cop->high, sizeof(rop->high));
    rop->has_high = cop->has_high;
    rop->right = cop->right;
    sx::leaf_put(cop->high, 0, sep);
    cop->has_high = 1;
    cop->right = BufferGetBlockNumber(rbuf);
    // The split-off half keeps the summary of the whole: inserts that
    // weakened it may still be on their way to keys now on the right.
    size_t n = internal_count(parent);
    sx::InternalEntry down = sx::internal_get(page_area(parent), pos);
    down.low = sep;
    down.child = BufferGetBlockNumber(rbuf);
    sx::internal_insert(page_area(parent), n, pos + 1, down);
    internal_set_count(parent, n + 1);
    GenericXLogFinish(state);
    if (sx::key_less(key, sep)) {
        UnlockReleaseBuffer(rbuf);
        return cbuf;
    }
    UnlockReleaseBuffer(cbuf);
    return rbuf;
}

// Pessimistic insert: exclusive lock coupling from the root, splitting every
// full page on the way down while its parent (known to have room) is locked,
// so each split is one atomic record and no split is ever left half done.
static void insert_pessimistic(Relation index, BlockNumber root, const sx::EntryKey &key) {
    Buffer buf = ReadBuffer(index, root);
    LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
    simhash_check_page(index, buf);
    if (needs_split(BufferGetPage(buf), key)) split_root(index, buf);
    for (;;) {
        if (page_opaque(BufferGetPage(buf))->flags & kPageLeaf) break;
        Downlink d = downlink_for(buf, key);
        weaken_downlink(index, buf, d.pos, key.key);
        Buffer cbuf = lock_child(index, d, BUFFER_LOCK_EXCLUSIVE);
        Buffer next = needs_split(BufferGetPage(cbuf), key) ? split_child(index, buf, d.pos, cbuf, key) : cbuf;
        UnlockReleaseBuffer(buf);
        buf = next;
    }
    if (!leaf_try_add(index, buf, key))
        elog(ERROR, "simhash index \"%s\": leaf %u has no room after its split", RelationGetRelationName(index),
             BufferGetBlockNumber(buf));
    UnlockReleaseBuffer(buf);
}

void simhash_tree_insert(Relation index, const SimhashMeta &meta, int table, const sx::EntryKey &key) {
    BlockNumber root = meta.roots[table];
    if (!insert_optimistic(index, root, key)) insert_pessimistic(index, root, key);
}
