// Planner estimates for "within k bits": the RESTRICT function of the <@ and
// @> operators; simhash_within's support function uses the same estimate.
//
// Random 64-bit values are within k bits with probability
// sum_{i<=k} C(64,i) / 2^64 (2.4e-15 for k = 3), but real fingerprints
// cluster: near-duplicates are the reason to store them. So the most common
// values ANALYZE found are tested exactly and only the rest of the rows get
// the binomial.
#include "selectivity.hpp"

#include "simhash_ball.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
}

#include "hamming.hpp"
#include "within_probability.hpp"

double within_selectivity(VariableStatData *vardata, std::uint64_t center, int radius) {
    double nullfrac = 0.0, mcv_total = 0.0, mcv_match = 0.0;
    if (HeapTupleIsValid(vardata->statsTuple)) {
        nullfrac = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(vardata->statsTuple))->stanullfrac;
        AttStatsSlot sslot;
        if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_MCV, InvalidOid,
                             ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS)) {
            // simhash64 or a column binary-coerced to it (bigint): 8 bytes by value.
            int16 typlen;
            bool typbyval;
            get_typlenbyval(sslot.valuetype, &typlen, &typbyval);
            if (typlen == 8 && typbyval) {
                for (int i = 0; i < sslot.nvalues; ++i) {
                    mcv_total += sslot.numbers[i];
                    if (simhash::hamming_distance(DatumGetSimhash64(sslot.values[i]), center) <= radius)
                        mcv_match += sslot.numbers[i];
                }
            }
            free_attstatsslot(&sslot);
        }
    }
    double rest = 1.0 - nullfrac - mcv_total;
    if (rest < 0.0) rest = 0.0;
    double selectivity = mcv_match + rest * simhash::random_within_probability(radius);
    CLAMP_PROBABILITY(selectivity);
    return selectivity;
}

// The radius of a ball that is not a constant but a call
// simhash_ball(expr, constant): a join "a.fp <@ simhash_ball(b.fp, 3)", or a
// center from an outer query. -1 when the radius is unknown at plan time.
static int constructed_radius(PlannerInfo *root, Node *ball) {
    if (!IsA(ball, FuncExpr)) return -1;
    FuncExpr *call = castNode(FuncExpr, ball);
    if (list_length(call->args) != 2) return -1;
    FmgrInfo finfo;
    fmgr_info(call->funcid, &finfo);
    if (finfo.fn_addr != simhash_ball_make) return -1;
    Node *radius = estimate_expression_value(root, static_cast<Node *>(lsecond(call->args)));
    if (!IsA(radius, Const) || castNode(Const, radius)->constisnull) return -1;
    return DatumGetInt32(castNode(Const, radius)->constvalue);
}

// RESTRICT for "fp <@ ball" and "ball @> fp": an estimate when the ball is a
// constant and the other side a column (or expression) with statistics.
SIMHASH_FUNCTION(simhash_ball_restrict_sel) {
    PlannerInfo *root = reinterpret_cast<PlannerInfo *>(PG_GETARG_POINTER(0));
    List *args = reinterpret_cast<List *>(PG_GETARG_POINTER(2));
    int varRelid = PG_GETARG_INT32(3);

    VariableStatData vardata;
    Node *other;
    bool varonleft;
    if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
        PG_RETURN_FLOAT8(kDefaultWithinSelectivity);

    double selectivity = kDefaultWithinSelectivity;
    // The ball is the by-reference side; a constant fingerprint against a
    // column of balls keeps the default.
    if (IsA(other, Const) && !castNode(Const, other)->constbyval) {
        const Const *ball = castNode(Const, other);
        if (ball->constisnull) {
            selectivity = 0.0;
        } else {
            const SimhashBall *b = DatumGetSimhashBall(ball->constvalue);
            selectivity = within_selectivity(&vardata, b->center, b->radius);
        }
    } else {
        int radius = constructed_radius(root, other);
        if (radius >= 0) selectivity = simhash::random_within_probability(radius);
    }
    ReleaseVariableStats(vardata);
    PG_RETURN_FLOAT8(selectivity);
}

// JOIN for the same operators: "a.fp <@ simhash_ball(b.fp, k)" with a constant
// k pairs random fingerprints with the binomial probability; without it the
// planner would assume half of the cross product.
SIMHASH_FUNCTION(simhash_ball_join_sel) {
    PlannerInfo *root = reinterpret_cast<PlannerInfo *>(PG_GETARG_POINTER(0));
    List *args = reinterpret_cast<List *>(PG_GETARG_POINTER(2));
    double selectivity = kDefaultWithinSelectivity;
    if (list_length(args) == 2) {
        int radius = constructed_radius(root, static_cast<Node *>(linitial(args)));
        if (radius < 0) radius = constructed_radius(root, static_cast<Node *>(lsecond(args)));
        if (radius >= 0) selectivity = simhash::random_within_probability(radius);
    }
    PG_RETURN_FLOAT8(selectivity);
}
