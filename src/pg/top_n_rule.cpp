// simhash_top_n_for_length(characters): the documented N for top_n by document
// length, max(16, floor(2 sqrt(characters))) (docs/weighting.md).
#include "simhash64.hpp"

#include "cpp_boundary.hpp"
#include "feature_weights.hpp"

SIMHASH_FUNCTION(simhash_top_n_for_length) {
    int64 characters = PG_GETARG_INT64(0);
    if (characters < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid value for characters: \"%lld\"", static_cast<long long>(characters)),
                        errhint("characters is a document length, length(document): at least 0.")));
    int n = 0;
    CPP_CALL("simhash_top_n_for_length", n = simhash::top_n_for_length(characters));
    PG_RETURN_INT32(n);
}
