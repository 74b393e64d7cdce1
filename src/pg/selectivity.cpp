// Planner estimates for "within k bits": the RESTRICT function of the <@ and
// @> operators; simhash_within's support function uses the same estimate.
//
// Random 64-bit values are within k bits with probability
// sum_{i<=k} C(64,i) / 2^64 (2.4e-15 for k = 3), but real fingerprints
// cluster: near-duplicates are the reason to store them. So the most common
// values ANALYZE found are tested exactly and only the rest of the rows get
// the binomial.
#include "selectivity.hpp"

#include <algorithm>
#include <cmath>

#include "simhash_ball.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"
}

#include "hamming.hpp"
#include "within_probability.hpp"

// The most common values ANALYZE found for the variable and their
// frequencies, into *sslot (free_attstatsslot after use); false without them
// or when they are not fingerprints: simhash64, or a column binary-coerced to
// it (bigint), 8 bytes by value.
static bool fingerprint_mcvs(VariableStatData *vardata, AttStatsSlot *sslot) {
    if (!get_attstatsslot(sslot, vardata->statsTuple, STATISTIC_KIND_MCV, InvalidOid,
                          ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
        return false;
    int16 typlen;
    bool typbyval;
    get_typlenbyval(sslot->valuetype, &typlen, &typbyval);
    if (typlen == 8 && typbyval) return true;
    free_attstatsslot(sslot);
    return false;
}

double within_selectivity(VariableStatData *vardata, std::uint64_t center, int radius) {
    double nullfrac = 0.0, mcv_total = 0.0, mcv_match = 0.0;
    if (HeapTupleIsValid(vardata->statsTuple)) {
        nullfrac = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(vardata->statsTuple))->stanullfrac;
        AttStatsSlot sslot;
        if (fingerprint_mcvs(vardata, &sslot)) {
            for (int i = 0; i < sslot.nvalues; ++i) {
                mcv_total += sslot.numbers[i];
                if (simhash::hamming_distance(DatumGetSimhash64(sslot.values[i]), center) <= radius)
                    mcv_match += sslot.numbers[i];
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

// Centers tested one by one against every most common value: the planner
// may run this for every generic plan, so at most 256 x 10,000 distances.
constexpr int kMaxMcvCenters = 256;

double within_unknown_center_selectivity(VariableStatData *vardata, int radius) {
    double random = simhash::random_within_probability(radius);
    // (A large radius matches more than the guess even among random values.)
    if (!HeapTupleIsValid(vardata->statsTuple)) return std::max(kDefaultWithinSelectivity, random);
    double nullfrac = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(vardata->statsTuple))->stanullfrac;
    if (nullfrac >= 1.0) return 0.0;
    bool isdefault;
    double ndistinct = get_variable_numdistinct(vardata, &isdefault);
    double mcv_total = 0.0, centers = 0.0, expected = 0.0;
    int nmcv = 0;
    AttStatsSlot sslot;
    if (fingerprint_mcvs(vardata, &sslot)) {
        nmcv = sslot.nvalues;
        for (int i = 0; i < nmcv; ++i) mcv_total += sslot.numbers[i];
        double rest = std::max(0.0, 1.0 - nullfrac - mcv_total);
        for (int i = 0; i < std::min(nmcv, kMaxMcvCenters); ++i) {
            uint64 center = DatumGetSimhash64(sslot.values[i]);
            double match = rest * random;
            for (int j = 0; j < nmcv; ++j)
                if (simhash::hamming_distance(DatumGetSimhash64(sslot.values[j]), center) <= radius)
                    match += sslot.numbers[j];
            expected += sslot.numbers[i] * match;
            centers += sslot.numbers[i];
        }
        free_attstatsslot(&sslot);
    }
    // Any other center: its own value's rows, and random rows of the rest
    // and of the most common values alike.
    double rest = std::max(0.0, 1.0 - nullfrac - mcv_total);
    double own = rest / std::max(1.0, ndistinct - nmcv);
    double others = std::max(0.0, 1.0 - nullfrac - centers);
    expected += others * (own + (1.0 - nullfrac) * random);
    double selectivity = expected / (1.0 - nullfrac);
    CLAMP_PROBABILITY(selectivity);
    return selectivity;
}

namespace {

// What a join side's statistics say: its fingerprints' NULL fraction and
// most common values (none without statistics, or when the radius is unknown
// and they cannot be tested). An argument that is a ball built from a
// fingerprint stands for that fingerprint (a NULL center makes a NULL ball,
// which matches nothing). Plain data, released by hand: no destructor is
// skipped when an ERROR leaves by longjmp.
struct JoinSide {
    VariableStatData vardata;
    double non_null;
    bool have_mcvs;
    AttStatsSlot mcvs;

    void examine(PlannerInfo *root, Node *arg, int radius) {
        if (constructed_radius(root, arg) >= 0) arg = static_cast<Node *>(linitial(castNode(FuncExpr, arg)->args));
        examine_variable(root, arg, 0, &vardata);
        non_null = 1.0;
        have_mcvs = false;
        if (!HeapTupleIsValid(vardata.statsTuple)) return;
        non_null -= reinterpret_cast<Form_pg_statistic>(GETSTRUCT(vardata.statsTuple))->stanullfrac;
        have_mcvs = radius >= 0 && fingerprint_mcvs(&vardata, &mcvs);
    }
    void release() {
        if (have_mcvs) free_attstatsslot(&mcvs);
        ReleaseVariableStats(vardata);
    }
    // (Tested against each other: at most 256 x 256 distances per estimate.)
    int tested() const { return have_mcvs ? std::min(mcvs.nvalues, kMaxMcvCenters) : 0; }
    double tested_fraction() const {
        double f = 0.0;
        for (int i = 0; i < tested(); ++i) f += mcvs.numbers[i];
        return f;
    }
    // The fraction of rows holding a tested value within `radius` of `value`.
    double tested_within(uint64 value, int radius) const {
        double f = 0.0;
        for (int i = 0; i < tested(); ++i)
            if (simhash::hamming_distance(value, DatumGetSimhash64(mcvs.values[i])) <= radius) f += mcvs.numbers[i];
        return f;
    }
};

// The chance that two random fingerprints are within `radius` (-1: unknown).
double random_pair(int radius) {
    return radius < 0 ? kDefaultWithinSelectivity : simhash::random_within_probability(radius);
}

// The fraction of all pairs that are within `radius`: pairs of most common
// values tested exactly, any pair with another value at the binomial for
// random values. Near-duplicates cluster, and a self-join of a column where
// many rows share a few fingerprints is where the binomial alone errs most.
double within_pair_fraction(const JoinSide &l, const JoinSide &r, int radius) {
    double exact = 0.0;
    for (int i = 0; i < l.tested(); ++i)
        exact += l.mcvs.numbers[i] * r.tested_within(DatumGetSimhash64(l.mcvs.values[i]), radius);
    double untested = l.non_null * r.non_null - l.tested_fraction() * r.tested_fraction();
    return exact + std::max(0.0, untested) * random_pair(radius);
}

// The fraction of the outer side's rows with at least one of `inner_rows`
// rows of the inner side within `radius`: each tested most common value of
// the outer side with its own chance per inner row (the inner most common
// values within the radius, the binomial for the other inner rows), any other
// outer fingerprint at the binomial, as a random value. (One mean chance for
// all outer rows made a heavy inner value match every outer row.)
double within_semi_fraction(const JoinSide &outer, const JoinSide &inner, double inner_rows, int radius) {
    double random = random_pair(radius);
    // 1 - (1 - q)^n, accurate for tiny q too
    auto any_of_inner = [inner_rows](double q) {
        return -std::expm1(inner_rows * std::log1p(-std::min(q, 1.0 - 1e-15)));
    };
    double inner_rest = std::max(0.0, inner.non_null - inner.tested_fraction());
    double fraction = 0.0;
    for (int i = 0; i < outer.tested(); ++i) {
        double q = inner.tested_within(DatumGetSimhash64(outer.mcvs.values[i]), radius) + inner_rest * random;
        fraction += outer.mcvs.numbers[i] * any_of_inner(q);
    }
    double outer_rest = std::max(0.0, outer.non_null - outer.tested_fraction());
    return fraction + outer_rest * any_of_inner(inner.non_null * random);
}

// The inner relation of a semi- or anti-join, or null.
RelOptInfo *semi_join_inner(PlannerInfo *root, const SpecialJoinInfo *sjinfo) {
    switch (bms_membership(sjinfo->min_righthand)) {
        case BMS_SINGLETON:
            return find_base_rel(root, bms_singleton_member(sjinfo->min_righthand));
        case BMS_MULTIPLE:
            return find_join_rel(root, sjinfo->min_righthand);
        default:
            return nullptr;
    }
}

}  // namespace

double within_join_selectivity(PlannerInfo *root, int radius, JoinType jointype, const SpecialJoinInfo *sjinfo,
                               Node *left, Node *right) {
    RelOptInfo *inner = nullptr;
    bool semi = (jointype == JOIN_SEMI || jointype == JOIN_ANTI) && sjinfo != nullptr;
    if (semi) inner = semi_join_inner(root, sjinfo);
    // Which side is the inner relation's.
    bool left_inner = semi && bms_is_subset(pull_varnos(root, left), sjinfo->min_righthand);
    JoinSide l, r;
    l.examine(root, left, radius);
    r.examine(root, right, radius);
    double selectivity = inner != nullptr && inner->rows > 0
                             ? within_semi_fraction(left_inner ? r : l, left_inner ? l : r, inner->rows, radius)
                             : within_pair_fraction(l, r, radius);
    l.release();
    r.release();
    CLAMP_PROBABILITY(selectivity);
    return selectivity;
}

int constructed_radius(PlannerInfo *root, Node *ball) {
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
        if (radius >= 0) selectivity = within_unknown_center_selectivity(&vardata, radius);
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
    JoinType jointype = static_cast<JoinType>(PG_GETARG_INT16(3));
    SpecialJoinInfo *sjinfo = reinterpret_cast<SpecialJoinInfo *>(PG_GETARG_POINTER(4));
    if (list_length(args) != 2) PG_RETURN_FLOAT8(kDefaultWithinSelectivity);
    Node *left = static_cast<Node *>(linitial(args)), *right = static_cast<Node *>(lsecond(args));
    int radius = constructed_radius(root, left);
    if (radius < 0) radius = constructed_radius(root, right);
    PG_RETURN_FLOAT8(within_join_selectivity(root, radius, jointype, sjinfo, left, right));
}
