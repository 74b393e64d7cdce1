// Single-row insert: the fingerprint goes into every table, each table's
// change one GenericXLog record (a split: parent, page and new sibling).
#include "index.hpp"

extern "C" bool simhash_aminsert(Relation index, Datum *values, bool *isnull, ItemPointer tid, Relation,
                                 IndexUniqueCheck, bool, IndexInfo *) {
    SimhashMeta meta = simhash_read_meta(index);
    if (isnull[0]) {
        simhash_tree_insert(index, meta, meta.tables, entry_key(0, tid));
        return false;
    }
    sx::Layout layout = simhash_layout(meta);
    uint64 fp = DatumGetSimhash64(values[0]);
    for (int t = 0; t < meta.tables; ++t) simhash_tree_insert(index, meta, t, entry_key(sx::table_key(layout, t, fp), tid));
    return false;
}
