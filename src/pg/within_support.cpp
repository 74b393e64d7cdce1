// Planner support for simhash_within(a, b, k). Without it a function clause is
// estimated at a flat 1/3; with a constant k it gets the same estimate as
// "a <@ simhash_ball(b, k)". For an index whose operator family has that
// operator (simhash_ops) the call becomes the index condition
// "a <@ simhash_ball(b, k)" (or b's), exact, so no recheck is needed.
#include "selectivity.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
}

#include "index.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "utils/catcache.h"
#include "utils/syscache.h"
}

#include "within_probability.hpp"

static double within_call_selectivity(SupportRequestSelectivity *req, int radius) {
    // A join, or two columns of one table: each side's NULLs and most common
    // values, random values for the rest.
    if (req->is_join)
        return within_join_selectivity(req->root, radius, req->jointype, req->sjinfo,
                                       static_cast<Node *>(linitial(req->args)),
                                       static_cast<Node *>(lsecond(req->args)));
    List *pair = list_make2(linitial(req->args), lsecond(req->args));
    VariableStatData vardata;
    Node *other;
    bool varonleft;
    if (!get_restriction_variable(req->root, pair, req->varRelid, &vardata, &other, &varonleft))
        return simhash::random_within_probability(radius);
    double selectivity;
    if (!IsA(other, Const))
        selectivity = within_unknown_center_selectivity(&vardata, radius);
    else if (castNode(Const, other)->constisnull)
        selectivity = 0.0;
    else
        selectivity = within_selectivity(&vardata, DatumGetSimhash64(castNode(Const, other)->constvalue), radius);
    ReleaseVariableStats(vardata);
    return selectivity;
}

// "indexed <@ simhash_ball(other, k)" when the family has <@ at strategy 1.
static List *within_index_condition(SupportRequestIndexCondition *req) {
    if (!is_funcclause(req->node) || req->indexarg > 1) return NIL;
    List *args = castNode(FuncExpr, req->node)->args;
    if (list_length(args) != 3) return NIL;
    Node *indexed = static_cast<Node *>(list_nth(args, req->indexarg));
    Node *other = static_cast<Node *>(list_nth(args, 1 - req->indexarg));
    Node *k = static_cast<Node *>(lthird(args));
    // The ball must be computable before the scan: nothing from the indexed
    // relation, nothing volatile.
    Relids rels = pull_varnos(req->root, other);
    rels = bms_union(rels, pull_varnos(req->root, k));
    if (bms_is_member(req->index->rel->relid, rels) || contain_volatile_functions(other) ||
        contain_volatile_functions(k))
        return NIL;
    // A k no ball can have stays simhash_within's to judge, row by row: the
    // ball's constructor would raise its own error at plan time, even where
    // no row is ever compared.
    Node *kvalue = estimate_expression_value(req->root, k);
    if (IsA(kvalue, Const) && !castNode(Const, kvalue)->constisnull) {
        int32 radius = DatumGetInt32(castNode(Const, kvalue)->constvalue);
        if (radius < 0 || radius > 64) return NIL;
    }
    Oid fptype = exprType(indexed);
    if (exprType(other) != fptype) return NIL;
    // The ball type and its constructor: in the schema of the <@ operator found in the family.
    CatCList *ops = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(req->opfamily));
    Oid inball = InvalidOid, balltype = InvalidOid;
    for (int i = 0; i < ops->n_members && !OidIsValid(inball); ++i) {
        Form_pg_amop op = reinterpret_cast<Form_pg_amop>(GETSTRUCT(&ops->members[i]->tuple));
        if (op->amopstrategy == kStrategyInBall && op->amoplefttype == fptype && op->amoppurpose == AMOP_SEARCH) {
            inball = op->amopopr;
            balltype = op->amoprighttype;
        }
    }
    ReleaseSysCacheList(ops);
    if (!OidIsValid(inball)) return NIL;
    Oid argtypes[2] = {fptype, INT4OID};
    List *name = list_make2(makeString(get_namespace_name(get_func_namespace(get_opcode(inball)))),
                            makeString(pstrdup("simhash_ball")));
    Oid make = LookupFuncName(name, 2, argtypes, true);
    if (!OidIsValid(make) || get_func_rettype(make) != balltype) return NIL;
    Expr *ball = reinterpret_cast<Expr *>(
        makeFuncExpr(make, balltype, list_make2(other, k), InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
    Expr *cond = make_opclause(inball, BOOLOID, false, reinterpret_cast<Expr *>(indexed), ball, InvalidOid, InvalidOid);
    req->lossy = false;
    return list_make1(cond);
}

SIMHASH_FUNCTION(simhash_within_support) {
    Node *raw = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
    if (IsA(raw, SupportRequestIndexCondition))
        PG_RETURN_POINTER(within_index_condition(castNode(SupportRequestIndexCondition, raw)));
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
