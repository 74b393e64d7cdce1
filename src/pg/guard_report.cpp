// The guard's errors. The DETAIL names the existing row's key, fingerprint and
// distance only to a user allowed to read them, like ExecBuildSlotValueDescription
// and BuildIndexValueDescription do for PostgreSQL's own constraint errors.
#include "guard.hpp"

extern "C" {
#include "access/table.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
}

static bool user_may_read(Oid relid, const char *column) {
    AttrNumber attnum = get_attnum(relid, column);
    if (attnum == InvalidAttrNumber) return false;
    return pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
}

void guard_report_near_duplicate(const GuardTarget *g, HeapTuple tuple, TupleDesc desc) {
    const Oid root = g->root;
    // Row-level security hides rows from this user: show no values at all.
    const bool rls_hides = check_enable_rls(root, InvalidOid, true) == RLS_ENABLED;
    const bool table_select = pg_class_aclcheck(root, GetUserId(), ACL_SELECT) == ACLCHECK_OK;

    bool show_fp = !rls_hides && (table_select || user_may_read(root, g->fp_name));
    bool show_key = !rls_hides && g->nkeys > 0;
    for (int i = 0; show_key && !table_select && i < g->nkeys; i++)
        show_key = user_may_read(root, g->key_names[i]);

    StringInfoData detail;
    initStringInfo(&detail);
    if (show_key) {
        appendStringInfoString(&detail, "Key (");
        for (int i = 0; i < g->nkeys; i++)
            appendStringInfo(&detail, "%s%s", i ? ", " : "", quote_identifier(g->key_names[i]));
        appendStringInfoString(&detail, ")=(");
        for (int i = 0; i < g->nkeys; i++) {
            char *v = SPI_getvalue(tuple, desc, kGuardColFirstKey + i);
            appendStringInfo(&detail, "%s%s", i ? ", " : "", v ? v : "null");
        }
        appendStringInfoString(&detail, ")");
    } else {
        appendStringInfoString(&detail, "An existing row");
    }
    if (show_fp) {
        bool isnull;
        int32 distance = DatumGetInt32(SPI_getbinval(tuple, desc, kGuardColDistance, &isnull));
        appendStringInfo(&detail, " has fingerprint %s, at distance %d (maximum %d).",
                         SPI_getvalue(tuple, desc, kGuardColFingerprint), distance, g->max_distance);
    } else {
        appendStringInfo(&detail, " is within distance %d.", g->max_distance);
    }

    Relation rel = table_open(root, AccessShareLock);
    ereport(ERROR, (errcode(ERRCODE_EXCLUSION_VIOLATION),
                    errmsg("new row for relation \"%s\" is a near-duplicate of an existing row",
                           RelationGetRelationName(rel)),
                    errdetail_internal("%s", detail.data),
                    errtablecol(rel, g->root_fp_attnum),
                    err_generic_string(PG_DIAG_CONSTRAINT_NAME, g->trigger_name)));
    pg_unreachable();
}

void guard_report_serialization_failure(const GuardTarget *g) {
    ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                    errmsg("could not serialize access due to a concurrent near-duplicate in relation \"%s\"",
                           get_rel_name(g->root)),
                    errdetail("A row within distance %d was committed after this transaction took its snapshot.",
                              g->max_distance),
                    errhint("The transaction might succeed if retried.")));
    pg_unreachable();
}
