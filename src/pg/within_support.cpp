// Planner support for simhash_within(a, b, k). Without it a function clause is
// estimated at a flat 1/3; with a constant k it gets the same estimate as
// "a <@ simhash_ball(b, k)".
#include "selectivity.hpp"

extern "C" {
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
}

#include "within_probability.hpp"

static double within_call_selectivity(SupportRequestSelectivity *req, int radius) {
    // A join, or two columns of one table: nothing better than random values.
    if (req->is_join) return simhash::random_within_probability(radius);
    List *pair = list_make2(linitial(req->args), lsecond(req->args));
    VariableStatData vardata;
    Node *other;
    bool varonleft;
    if (!get_restriction_variable(req->root, pair, req->varRelid, &vardata, &other, &varonleft))
        return simhash::random_within_probability(radius);
    double selectivity;
    if (!IsA(other, Const))
        selectivity = simhash::random_within_probability(radius);
    else if (castNode(Const, other)->constisnull)
        selectivity = 0.0;
    else
        selectivity = within_selectivity(&vardata, DatumGetSimhash64(castNode(Const, other)->constvalue), radius);
    ReleaseVariableStats(vardata);
    return selectivity;
}

SIMHASH_FUNCTION(simhash_within_support) {
    Node *raw = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
    if (!IsA(raw, SupportRequestSelectivity)) PG_RETURN_POINTER(nullptr);

    SupportRequestSelectivity *req = castNode(SupportRequestSelectivity, raw);
    if (list_length(req->args) != 3) PG_RETURN_POINTER(nullptr);
    Node *k = estimate_expression_value(req->root, static_cast<Node *>(lthird(req->args)));
    if (!IsA(k, Const)) {
        req->selectivity = kDefaultWithinSelectivity;
    } else if (castNode(Const, k)->constisnull) {
        req->selectivity = 0.0;
    } else {
        req->selectivity = within_call_selectivity(req, DatumGetInt32(castNode(Const, k)->constvalue));
    }
    PG_RETURN_POINTER(req);
}
