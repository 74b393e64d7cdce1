// amvalidate for simhash_ops: three strategies (<@ ball, =, <-> for ORDER
// BY), no support functions.
#include "index.hpp"

extern "C" {
#include "access/amvalidate.h"
#include "access/stratnum.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

extern "C" Datum simhash64_in(PG_FUNCTION_ARGS);
extern "C" Datum simhash_ball_in(PG_FUNCTION_ARGS);

namespace {

// The extension's types have no fixed OIDs: each is known by its text input
// function, which is this library's.
bool is_type_read_by(Oid type, PGFunction input) {
    HeapTuple tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
    if (!HeapTupleIsValid(tup)) return false;
    Oid typinput = reinterpret_cast<Form_pg_type>(GETSTRUCT(tup))->typinput;
    ReleaseSysCache(tup);
    FmgrInfo finfo;
    fmgr_info(typinput, &finfo);
    return finfo.fn_addr == input;
}

}  // namespace

void simhash_check_column_type(Relation index) {
    if (!is_type_read_by(index->rd_opcintype[0], simhash64_in))
        ereport(ERROR, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
                        errmsg("simhash index \"%s\" indexes type %s, not simhash64", RelationGetRelationName(index),
                               format_type_be(index->rd_opcintype[0])),
                        errhint("Its operator class fails amvalidate().")));
}

bool simhash_reads_argument(Relation index, StrategyNumber strategy, Oid type) {
    if (strategy == kStrategyEqual || strategy == kStrategyDistance) return type == index->rd_opcintype[0];
    if (strategy != kStrategyInBall) return false;
    if (index->rd_amcache == nullptr) simhash_read_meta(index);
    if (type == static_cast<SimhashCache *>(index->rd_amcache)->ball_type) return true;
    if (!is_type_read_by(type, simhash_ball_in)) return false;
    // The catalog lookup may have processed invalidations, which free the cache.
    if (index->rd_amcache == nullptr) simhash_read_meta(index);
    static_cast<SimhashCache *>(index->rd_amcache)->ball_type = type;
    return true;
}

// The scan reads its arguments by type (a ball for <@, a fingerprint for = and
// <->) and the index stores the fingerprint as 8 bytes: an operator class
// with other types is reported, not trusted.
extern "C" bool simhash_amvalidate(Oid opclassoid) {
    HeapTuple classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
    if (!HeapTupleIsValid(classtup)) elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
    Form_pg_opclass classform = reinterpret_cast<Form_pg_opclass>(GETSTRUCT(classtup));
    Oid opfamily = classform->opcfamily;
    Oid intype = classform->opcintype;
    char *name = pstrdup(NameStr(classform->opcname));
    ReleaseSysCache(classtup);

    bool ok = true;
    if (!is_type_read_by(intype, simhash64_in)) {
        ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
                       errmsg("simhash operator class \"%s\" must be for type simhash64, not %s", name,
                              format_type_be(intype))));
        ok = false;
    }
    CatCList *procs = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamily));
    if (procs->n_members > 0) {
        ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
                       errmsg("simhash operator class \"%s\" must have no support functions", name)));
        ok = false;
    }
    ReleaseSysCacheList(procs);

    CatCList *ops = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamily));
    for (int i = 0; i < ops->n_members; ++i) {
        Form_pg_amop op = reinterpret_cast<Form_pg_amop>(GETSTRUCT(&ops->members[i]->tuple));
        bool ordering = op->amoppurpose == AMOP_ORDER;
        bool good = op->amoplefttype == intype;
        switch (op->amopstrategy) {
        case kStrategyInBall:
            good = good && !ordering && is_type_read_by(op->amoprighttype, simhash_ball_in) &&
                   check_amop_signature(op->amopopr, BOOLOID, op->amoplefttype, op->amoprighttype);
            break;
        case kStrategyEqual:
            good = good && !ordering && op->amoprighttype == intype &&
                   check_amop_signature(op->amopopr, BOOLOID, op->amoplefttype, op->amoprighttype);
            break;
        case kStrategyDistance:
            // Sorted by int4's own order.
            good = good && ordering && op->amoprighttype == intype &&
                   OidIsValid(get_opfamily_member(op->amopsortfamily, INT4OID, INT4OID, BTLessStrategyNumber)) &&
                   check_amop_signature(op->amopopr, INT4OID, op->amoplefttype, op->amoprighttype);
            break;
        default:
            good = false;
        }
        if (!good) {
            ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
                           errmsg("simhash operator class \"%s\" has an invalid operator %s at strategy %d", name,
                                  format_operator(op->amopopr), op->amopstrategy)));
            ok = false;
        }
    }
    ReleaseSysCacheList(ops);
    return ok;
}
