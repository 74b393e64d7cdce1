// Hamming distance, similarity and the within-k predicate.
#include "simhash64.hpp"

#include "hamming.hpp"

SIMHASH_FUNCTION(simhash64_distance) {
    PG_RETURN_INT32(simhash::hamming_distance(PG_GETARG_SIMHASH64(0), PG_GETARG_SIMHASH64(1)));
}

SIMHASH_FUNCTION(simhash64_similarity) {
    int d = simhash::hamming_distance(PG_GETARG_SIMHASH64(0), PG_GETARG_SIMHASH64(1));
    PG_RETURN_FLOAT8(1.0 - static_cast<double>(d) / simhash::kBits);
}

SIMHASH_FUNCTION(simhash64_within) {
    int32 k = PG_GETARG_INT32(2);
    if (k < 0 || k > simhash::kBits)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("distance %d is out of range for simhash_within", k),
                        errhint("The distance must be between 0 and 64 bits.")));
    PG_RETURN_BOOL(simhash::hamming_distance(PG_GETARG_SIMHASH64(0), PG_GETARG_SIMHASH64(1)) <= k);
}
