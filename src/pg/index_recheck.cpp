// The index-only check (recheck_entry), and the leaf pin it keeps.
//
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
#include "index_scan.hpp"

namespace index_scan {

namespace {

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

}  // namespace

void release_pin(ScanState *st) {
    if (BufferIsValid(st->pinned)) ReleaseBuffer(st->pinned);
    st->pinned = InvalidBuffer;
    st->verified_end = 0;
}

bool recheck_entry(Relation index, ScanState *st, Size i) {
    return i < st->verified_end || recheck_leaf(index, st, i);
}

}  // namespace index_scan
