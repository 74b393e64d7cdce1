// Reloptions of the simhash index: max_distance, the largest radius the
// tables guarantee (0..32). It fixes the layout, frozen in the metapage.
#include "index.hpp"

static relopt_kind simhash_relopt_kind;

void simhash_register_reloptions() {
    simhash_relopt_kind = add_reloption_kind();
    add_int_reloption(simhash_relopt_kind, "max_distance",
                      "largest Hamming distance the index answers by probing its tables",
                      kDefaultMaxDistance, 0, sx::kMaxIndexDistance, AccessExclusiveLock);
}

extern "C" bytea *simhash_amoptions(Datum reloptions, bool validate) {
    static const relopt_parse_elt table[] = {
        {"max_distance", RELOPT_TYPE_INT, offsetof(SimhashOptions, max_distance)},
    };
    return static_cast<bytea *>(
        build_reloptions(reloptions, validate, simhash_relopt_kind, sizeof(SimhashOptions), table, lengthof(table)));
}

int simhash_max_distance_option(Relation index) {
    SimhashOptions *opts = reinterpret_cast<SimhashOptions *>(index->rd_options);
    return opts != nullptr ? opts->max_distance : kDefaultMaxDistance;
}
