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

// The same when the center is not known at plan time but is one of the
// column's own values (a generic plan's parameter, the outer row of a
// self-join probe): the expectation over centers drawn like the rows, so
// each most common value as the center with its frequency, and any other
// value matching its own rows and random ones.
double within_unknown_center_selectivity(VariableStatData *vardata, int radius);

// For a join on "within `radius` bits" (-1: a radius unknown at plan time) of
// fingerprints `left` and `right` (either may be a ball built from one): the
// fraction of pairs that match, or for a semi- or anti-join (what PostgreSQL
// asks a join estimator for there) the fraction of outer rows with at least
// one match. Rows whose fingerprint is NULL match nothing; the most common
// values of both sides are tested against each other, other pairs get the
// binomial for random values.
double within_join_selectivity(PlannerInfo *root, int radius, JoinType jointype, const SpecialJoinInfo *sjinfo,
                               Node *left, Node *right);

// The radius of a ball that is not a constant but a call
// simhash_ball(expr, constant): a join "a.fp <@ simhash_ball(b.fp, 3)", or a
// center from an outer query. -1 when the radius is unknown at plan time, or
// the call is to another function returning a ball.
int constructed_radius(PlannerInfo *root, Node *ball);
