// Reloptions of the simhash index: max_distance, the largest radius the
// tables guarantee (0..32), and optionally the layout: `blocks` or `tables`
// (0, the default, lets the build choose from the table's size); the
// two-level layouts are asked for by their table count. The layout
// is frozen in the metapage at build.
#include "index.hpp"

extern "C" {
#include "lib/stringinfo.h"
}

static relopt_kind simhash_relopt_kind;

void simhash_register_reloptions() {
    simhash_relopt_kind = add_reloption_kind();
    add_int_reloption(simhash_relopt_kind, "max_distance",
                      "largest Hamming distance the index answers by probing its tables",
                      kDefaultMaxDistance, 0, sx::kMaxIndexDistance, AccessExclusiveLock);
    add_int_reloption(simhash_relopt_kind, "blocks",
                      "blocks the fingerprint is split into (0: chosen at build from the table's size)", 0, 0,
                      sx::kMaxIndexBlocks, AccessExclusiveLock);
    add_int_reloption(simhash_relopt_kind, "tables",
                      "tables of the index (0: chosen at build from the table's size)", 0, 0, sx::kMaxTables,
                      AccessExclusiveLock);
}

// The table counts the layouts for `max_distance` offer, for hints.
static char *possible_tables(int max_distance) {
    StringInfoData s;
    initStringInfo(&s);
    for (int blocks = max_distance + 1; blocks <= sx::kMaxIndexBlocks; ++blocks) {
        int tables = sx::index_layout_tables(max_distance, blocks);
        if (tables == 0) break;
        appendStringInfo(&s, "%s%d (blocks = %d)", blocks == max_distance + 1 ? "" : ", ", tables, blocks);
    }
    if (sx::two_level_tables(max_distance) > 0)
        appendStringInfo(&s, ", %d (two-level)", sx::two_level_tables(max_distance));
    return s.data;
}

// The layout the reloptions ask for: false when they leave the choice to the
// build; raises invalid_parameter_value when no layout fits them.
static bool requested_layout(int max_distance, int blocks, int tables, sx::Layout *out) {
    const int two_level = sx::two_level_tables(max_distance);
    if (tables > 0 && tables == two_level && (blocks == 0 || blocks == two_level)) {
        *out = sx::make_two_level_layout(max_distance);
        return true;
    }
    if (blocks > 0) {
        if (blocks <= max_distance)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("blocks = %d is too few for max_distance = %d", blocks, max_distance),
                            errdetail("Two fingerprints within k bits agree on some block only when there are at "
                                      "least k + 1 blocks.")));
        int has = sx::index_layout_tables(max_distance, blocks);
        if (has == 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("blocks = %d with max_distance = %d needs more than %d tables", blocks,
                                   max_distance, sx::kMaxTables),
                            errhint("Possible tables: %s.", possible_tables(max_distance))));
        if (tables > 0 && tables != has)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("tables = %d disagrees with blocks = %d, which gives %d tables for "
                                   "max_distance = %d",
                                   tables, blocks, has, max_distance)));
        *out = sx::make_layout(max_distance, blocks);
        return true;
    }
    if (tables > 0) {
        int b = sx::blocks_for_tables(max_distance, tables);
        if (b == 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("no layout for max_distance = %d has tables = %d", max_distance, tables),
                            errhint("Possible tables: %s.", possible_tables(max_distance))));
        *out = sx::make_layout(max_distance, b);
        return true;
    }
    return false;
}

extern "C" bytea *simhash_amoptions(Datum reloptions, bool validate) {
    static const relopt_parse_elt table[] = {
        {"max_distance", RELOPT_TYPE_INT, offsetof(SimhashOptions, max_distance)},
        {"blocks", RELOPT_TYPE_INT, offsetof(SimhashOptions, blocks)},
        {"tables", RELOPT_TYPE_INT, offsetof(SimhashOptions, tables)},
    };
    bytea *result = static_cast<bytea *>(
        build_reloptions(reloptions, validate, simhash_relopt_kind, sizeof(SimhashOptions), table, lengthof(table)));
    if (validate && result != nullptr) {
        SimhashOptions *opts = reinterpret_cast<SimhashOptions *>(result);
        sx::Layout unused;
        requested_layout(opts->max_distance, opts->blocks, opts->tables, &unused);
    }
    return result;
}

sx::Layout simhash_layout_option(Relation index, double rows) {
    SimhashOptions *opts = reinterpret_cast<SimhashOptions *>(index->rd_options);
    int max_distance = opts != nullptr ? opts->max_distance : kDefaultMaxDistance;
    sx::Layout layout;
    if (opts != nullptr && requested_layout(max_distance, opts->blocks, opts->tables, &layout)) return layout;
    return sx::make_layout(max_distance, sx::default_blocks(max_distance, rows));
}
