// amvalidate for simhash_ops: three strategies (<@ ball, =, <-> for ORDER
// BY), no support functions.
#include "index.hpp"

extern "C" {
#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

extern "C" bool simhash_amvalidate(Oid opclassoid) {
    HeapTuple classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
    if (!HeapTupleIsValid(classtup)) elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
    Form_pg_opclass classform = reinterpret_cast<Form_pg_opclass>(GETSTRUCT(classtup));
    Oid opfamily = classform->opcfamily;
    Oid intype = classform->opcintype;
    char *name = pstrdup(NameStr(classform->opcname));
    ReleaseSysCache(classtup);

    bool ok = true;
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
        case kStrategyEqual:
            good = good && !ordering && check_amop_signature(op->amopopr, BOOLOID, op->amoplefttype, op->amoprighttype);
            break;
        case kStrategyDistance:
            good = good && ordering && op->amopsortfamily != InvalidOid &&
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
