// Reloptions of the simhash index: max_distance, the largest radius the
// tables guarantee (0..32), and optionally the layout: `blocks` or `tables`
// (0, the default, lets the build choose from the table's size). The layout
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
    return s.data;
}

// The blocks the reloptions ask for, 0 when they leave the choice to the
// build; raises invalid_parameter_value when no layout fits them.
static int requested_blocks(int max_distance, int blocks, int tables) {
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
        return blocks;
    }
    if (tables > 0) {
        int b = sx::blocks_for_tables(max_distance, tables);
        if (b == 0)
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("no layout for max_distance = %d has tables = %d", max_distance, tables),
                            errhint("Possible tables: %s.", possible_tables(max_distance))));
        return b;
    }
    return 0;
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
        requested_blocks(opts->max_distance, opts->blocks, opts->tables);
    }
    return result;
}

int simhash_max_distance_option(Relation index) {
    SimhashOptions *opts = reinterpret_cast<SimhashOptions *>(index->rd_options);
    return opts != nullptr ? opts->max_distance : kDefaultMaxDistance;
}

int simhash_blocks_option(Relation index, double rows) {
    SimhashOptions *opts = reinterpret_cast<SimhashOptions *>(index->rd_options);
    int max_distance = simhash_max_distance_option(index);
    int blocks = opts != nullptr ? requested_blocks(max_distance, opts->blocks, opts->tables) : 0;
    return blocks > 0 ? blocks : sx::default_blocks(max_distance, rows);
}
