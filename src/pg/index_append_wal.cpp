// The leaf append, the one change almost every insert makes, WAL-logged as a
// generic WAL record built directly instead of through GenericXLog.
//
// GenericXLogRegisterBuffer copies the whole page and GenericXLogFinish finds
// the change by comparing the copy with the original byte by byte: for a
// nearly full leaf that is ~8 kB copied and ~8 kB compared, four times per
// row (one per table), and it was more than half the time of an INSERT. An
// append changes two known places: pd_lower, and the entry written where
// pd_lower was; a third, the leaf's key summary, only when the new key has a
// bit no key had or lacks one all had. So the record carries a delta that
// replays to the same page as the one GenericXLogFinish would compute
// (fragments of the generic format: offset uint16, length uint16, bytes; see
// access/transam/generic_xlog.c; the summary's 16 bytes go whole),
// and it is replayed by core's generic_redo as any GenericXLog record:
// standbys and crash recovery still need no library, and
// wal_consistency_checking = 'generic' still verifies it (TAP 010).
#include "index.hpp"

extern "C" {
#include "access/rmgr.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
}

namespace {

struct Fragment {
    uint16 offset;
    uint16 length;
};

// Appends one fragment (header and the bytes now on the page) to `out`.
size_t put_fragment(char *out, Page page, size_t offset, size_t length) {
    Fragment f = {static_cast<uint16>(offset), static_cast<uint16>(length)};
    memcpy(out, &f, sizeof(f));
    memcpy(out + sizeof(f), reinterpret_cast<char *>(page) + offset, length);
    return sizeof(f) + length;
}

}  // namespace

// `buf` is exclusively locked, a leaf with room for one more tail entry.
void simhash_leaf_append(Relation index, Buffer buf, const sx::EntryKey &key) {
    Page page = BufferGetPage(buf);
    size_t bytes = leaf_bytes(page);
    size_t at = ((PageHeader)page)->pd_lower;
    char delta[3 * sizeof(Fragment) + sizeof(LocationIndex) + sx::kSummarySize + sx::kLeafEntrySize];
    size_t len = 0;

    START_CRIT_SECTION();
    bool summary = sx::leaf_summarize_append(page_area(page), bytes, key.key);
    sx::leaf_put(page_area(page) + bytes, 0, key);  // the tail: after the packed segment
    leaf_set_bytes(page, bytes + sx::kLeafEntrySize);
    MarkBufferDirty(buf);
    if (RelationNeedsWAL(index)) {
        len += put_fragment(delta + len, page, offsetof(PageHeaderData, pd_lower), sizeof(LocationIndex));
        if (summary)
            len += put_fragment(delta + len, page, page_area_offset() + sx::kSummaryOffset, sx::kSummarySize);
        len += put_fragment(delta + len, page, at, sx::kLeafEntrySize);
        XLogBeginInsert();
        XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
        XLogRegisterBufData(0, delta, len);
        XLogRecPtr lsn = XLogInsert(RM_GENERIC_ID, 0);
        PageSetLSN(page, lsn);
    }
    END_CRIT_SECTION();
}
