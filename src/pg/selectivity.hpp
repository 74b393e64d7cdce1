// Selectivity of "within k bits of a constant fingerprint", shared by the
// restriction estimator of <@ / @> and the support function of simhash_within.
#pragma once

#include "simhash64.hpp"

extern "C" {
#include "utils/selfuncs.h"
}

// Used when the center or the radius is unknown at plan time (a generic plan's
// parameter, a sub-select): a near-duplicate lookup is selective, like a
// pattern match, so the same guess as PostgreSQL's DEFAULT_MATCH_SEL.
constexpr double kDefaultWithinSelectivity = 0.005;

// The fraction of the variable's rows within `radius` bits of `center`: the
// most common values are tested exactly, the rest get the binomial for
// random 64-bit values; NULLs never match.
double within_selectivity(VariableStatData *vardata, std::uint64_t center, int radius);
