// simhash_reject_near_duplicates(): a BEFORE ROW trigger that refuses a row
// whose fingerprint is within k bits of another row's.
//
// Race-freedom: a writer first locks, for its transaction, one advisory lock
// per pigeonhole block of the fingerprint (guard_buckets.hpp), in sorted
// order; then it searches among the rows committed by then. Whoever wrote a
// near-duplicate before us shares a bucket, so we waited for it to end: its
// row is committed (and seen) or aborted. Rows written after us must wait for
// our locks in turn.
#include "guard.hpp"

#include "cpp_boundary.hpp"
#include "guard_buckets.hpp"
#include "simhash64.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "rewrite/rewriteHandler.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

#include <cerrno>
#include <cstdlib>

namespace {

constexpr int kMaxLockKeys = 2 * (simhash::kGuardMaxDistance + 1);

// What one trigger keeps between rows: the table it guards (found through
// pg_trigger for a partition's clone; forgotten on any relcache invalidation,
// which dropping or creating a trigger causes) and the saved search plan,
// rebuilt whenever DDL invalidates it (a rename changes the names it holds).
struct GuardEntry {
    Oid tgoid;  // hash key
    bool root_valid;
    Oid root;
    SPIPlanPtr plan;
};

HTAB *guard_entries = nullptr;

void forget_roots(Datum, Oid) {
    HASH_SEQ_STATUS it;
    hash_seq_init(&it, guard_entries);
    while (auto *e = static_cast<GuardEntry *>(hash_seq_search(&it))) e->root_valid = false;
}

GuardEntry *guard_entry(Oid tgoid) {
    if (guard_entries == nullptr) {
        HASHCTL ctl;
        ctl.keysize = sizeof(Oid);
        ctl.entrysize = sizeof(GuardEntry);
        guard_entries = hash_create("simhash guard triggers", 16, &ctl, HASH_ELEM | HASH_BLOBS);
        CacheRegisterRelcacheCallback(forget_roots, 0);
    }
    bool found;
    auto *e = static_cast<GuardEntry *>(hash_search(guard_entries, &tgoid, HASH_ENTER, &found));
    if (!found) {
        e->root_valid = false;
        e->plan = nullptr;
    }
    return e;
}

pg_attribute_noreturn() void protocol_error(const char *what) {
    ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                    errmsg("simhash_reject_near_duplicates: %s", what),
                    errhint("Create it with simhash_guard(), or as BEFORE INSERT OR UPDATE OR DELETE ... FOR EACH ROW.")));
}

Oid simhash64_type_in(Oid nsp) {
    Oid t = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("simhash64"), ObjectIdGetDatum(nsp));
    if (!OidIsValid(t)) elog(ERROR, "type simhash64 not found in the extension's schema");
    return t;
}

int parse_distance(const char *arg) {
    char *end = nullptr;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > simhash::kGuardMaxDistance)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_reject_near_duplicates: invalid maximum distance \"%s\"", arg),
                        errhint("The maximum distance is an integer between 0 and %d.",
                                simhash::kGuardMaxDistance)));
    return static_cast<int>(v);
}

AttrNumber column_of(Relation rel, const char *name) {
    int attnum = SPI_fnumber(RelationGetDescr(rel), name);
    if (attnum <= 0)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                        errmsg("simhash_reject_near_duplicates: column \"%s\" of relation \"%s\" does not exist",
                               name, RelationGetRelationName(rel))));
    return static_cast<AttrNumber>(attnum);
}

// The table the trigger was created on: a trigger created on a partitioned
// table is cloned onto each partition, and a row routed to a partition must
// be compared with every partition.
Oid find_root(const Trigger *trig, Relation rel) {
    if (!trig->tgisclone) return RelationGetRelid(rel);
    Relation tgrel = table_open(TriggerRelationId, AccessShareLock);
    Oid tgoid = trig->tgoid;
    Oid root = RelationGetRelid(rel);
    for (;;) {
        ScanKeyData key;
        ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(tgoid));
        SysScanDesc scan = systable_beginscan(tgrel, TriggerOidIndexId, true, nullptr, 1, &key);
        HeapTuple tup = systable_getnext(scan);
        if (!HeapTupleIsValid(tup)) elog(ERROR, "could not find trigger %u", tgoid);
        auto form = reinterpret_cast<Form_pg_trigger>(GETSTRUCT(tup));
        root = form->tgrelid;
        tgoid = form->tgparentid;
        systable_endscan(scan);
        if (!OidIsValid(tgoid)) break;
    }
    table_close(tgrel, AccessShareLock);
    return root;
}

// Columns: fingerprint, distance, then the key columns as text. The radius is
// a constant, so the planner can estimate it; "<@ simhash_ball" is the form a
// simhash index answers. The row being updated is excluded by its address.
SPIPlanPtr build_plan(const GuardTarget *g, Oid ext_nsp, Oid fp_type) {
    const char *ext = quote_identifier(get_namespace_name(ext_nsp));
    const char *fp = quote_identifier(g->fp_name);
    StringInfoData q;
    initStringInfo(&q);
    appendStringInfo(&q, "SELECT t.%s, t.%s OPERATOR(%s.<->) $1", fp, fp, ext);
    for (int i = 0; i < g->nkeys; i++)
        appendStringInfo(&q, ", t.%s::pg_catalog.text", quote_identifier(g->key_names[i]));
    appendStringInfo(&q,
                     " FROM %s t WHERE t.%s OPERATOR(%s.<@) %s.simhash_ball($1, %d)"
                     " AND NOT (t.tableoid OPERATOR(pg_catalog.=) $2 AND t.ctid OPERATOR(pg_catalog.=) $3)"
                     " ORDER BY 2 LIMIT 1",
                     quote_qualified_identifier(get_namespace_name(get_rel_namespace(g->root)), get_rel_name(g->root)),
                     fp, ext, ext, g->max_distance);
    Oid argtypes[3] = {fp_type, OIDOID, TIDOID};
    SPIPlanPtr plan = SPI_prepare(q.data, 3, argtypes);
    if (plan == nullptr) elog(ERROR, "simhash guard: SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
    return plan;
}

Oid guard_root(GuardEntry *e, const Trigger *trig, Relation rel) {
    if (!e->root_valid) {
        e->root = find_root(trig, rel);
        e->root_valid = true;
    }
    return e->root;
}

SPIPlanPtr fetch_plan(GuardEntry *e, const GuardTarget *g, Oid ext_nsp, Oid fp_type) {
    if (e->plan != nullptr && SPI_plan_is_valid(e->plan)) return e->plan;
    if (e->plan != nullptr) SPI_freeplan(e->plan);
    e->plan = nullptr;
    SPIPlanPtr plan = build_plan(g, ext_nsp, fp_type);
    if (SPI_keepplan(plan) != 0) elog(ERROR, "simhash guard: SPI_keepplan failed");
    e->plan = plan;
    return plan;
}

bool held_against_writers(Oid relid) {
    LOCKTAG tag;
    SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
    return LockHeldByMe(&tag, ShareRowExclusiveLock) || LockHeldByMe(&tag, ExclusiveLock) ||
           LockHeldByMe(&tag, AccessExclusiveLock);
}

// A transaction that holds the guarded table in SHARE ROW EXCLUSIVE mode or
// stronger (LOCK TABLE before a bulk load) has no concurrent writer: it needs
// no bucket locks. For a partitioned table (or one with inheritance children)
// every member must be so held: LOCK TABLE ONLY on the parent leaves the
// partitions open to writers that insert into them directly.
bool table_locked_against_writers(Oid root) {
    if (!held_against_writers(root)) return false;
    if (!has_subclass(root)) return true;
    List *members = find_all_inheritors(root, NoLock, nullptr);
    bool locked = true;
    ListCell *lc;
    foreach (lc, members) {
        if (!held_against_writers(lfirst_oid(lc))) {
            locked = false;
            break;
        }
    }
    list_free(members);
    return locked;
}

// Bucket locks last until the transaction ends, and the shared lock table has
// room for about max_locks_per_transaction locks per backend: a transaction
// writing many rows would fill it. Past that many bucket locks in one
// transaction, over all guarded tables (a lock it already holds does not
// count again), the guard takes the table (and its partitions) in SHARE ROW
// EXCLUSIVE mode instead, as LOCK TABLE would, and takes no more bucket locks
// there.
int &bucket_locks_taken() {
    static LocalTransactionId lxid = InvalidLocalTransactionId;
    static int taken = 0;
    if (lxid != MyProc->lxid) {
        lxid = MyProc->lxid;
        taken = 0;
    }
    return taken;
}

void lock_table_against_writers(Oid root) {
    ereport(DEBUG1, (errmsg_internal("simhash guard: more than %d bucket locks, locking relation %u against writers",
                                     max_locks_per_xact, root)));
    LockRelationOid(root, ShareRowExclusiveLock);
    list_free(find_all_inheritors(root, ShareRowExclusiveLock, nullptr));
}

void lock_buckets(const GuardTarget *g, bool writes, uint64 written_fp, bool keeps, uint64 kept_fp) {
    if (table_locked_against_writers(g->root)) return;
    simhash::GuardLock locks[kMaxLockKeys];
    int nlocks = 0;
    CPP_CALL("simhash_reject_near_duplicates", {
        std::vector<simhash::GuardLockKey> w, k;
        if (writes) w = simhash::guard_lock_keys(g->root, g->root_fp_attnum, written_fp, g->max_distance);
        if (keeps) k = simhash::guard_lock_keys(g->root, g->root_fp_attnum, kept_fp, g->max_distance);
        for (const auto &l : simhash::guard_lock_plan(w, k)) locks[nlocks++] = l;
    });
    int &taken = bucket_locks_taken();
    for (int i = 0; i < nlocks; i++) {
        LOCKTAG tag;
        SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, locks[i].key.space, locks[i].key.bucket, kGuardLockTagField4);
        LOCKMODE mode = locks[i].exclusive ? ExclusiveLock : ShareLock;
        if (LockHeldByMe(&tag, mode)) continue;
        if (taken >= max_locks_per_xact) {
            lock_table_against_writers(g->root);
            return;
        }
        (void) LockAcquire(&tag, mode, false, false);
        ++taken;
    }
}

bool search(SPIPlanPtr plan, Snapshot snap, bool read_only, Datum *values) {
    int rc = SPI_execute_snapshot(plan, values, nullptr, snap, InvalidSnapshot, read_only, false, 1);
    if (rc != SPI_OK_SELECT) elog(ERROR, "simhash guard: search failed: %s", SPI_result_code_string(rc));
    return SPI_processed > 0;
}

}  // namespace

// A stored generated column is computed only after BEFORE ROW triggers have
// run, so the new row does not hold its fingerprint yet: evaluate the
// generation expression on the row, as the executor will right after us.
static Datum generated_value(Relation rel, HeapTuple tuple, AttrNumber attnum, bool *isnull) {
    Expr *expr = reinterpret_cast<Expr *>(build_column_default(rel, attnum));
    if (expr == nullptr)
        elog(ERROR, "no generation expression for column %d of relation \"%s\"", attnum, RelationGetRelationName(rel));
    EState *estate = CreateExecutorState();
    ExprState *state = ExecPrepareExpr(expr, estate);
    ExprContext *econtext = GetPerTupleExprContext(estate);
    TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
    ExecStoreHeapTuple(tuple, slot, false);
    econtext->ecxt_scantuple = slot;
    // simhash64 is passed by value: the result outlives the executor state.
    Datum value = ExecEvalExprSwitchContext(state, econtext, isnull);
    ExecDropSingleTupleTableSlot(slot);
    FreeExecutorState(estate);
    return value;
}


SIMHASH_FUNCTION(simhash_reject_near_duplicates) {
    if (!CALLED_AS_TRIGGER(fcinfo)) protocol_error("not called by the trigger manager");
    auto *td = reinterpret_cast<TriggerData *>(fcinfo->context);
    if (!TRIGGER_FIRED_BEFORE(td->tg_event)) protocol_error("must be fired BEFORE the event");
    if (!TRIGGER_FIRED_FOR_ROW(td->tg_event)) protocol_error("must be fired FOR EACH ROW");

    const Trigger *trig = td->tg_trigger;
    Relation rel = td->tg_relation;
    if (trig->tgnargs < 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_reject_near_duplicates: the fingerprint column is missing"),
                        errhint("Arguments: fingerprint column, maximum distance (default 3), key columns.")));
    if (trig->tgnargs - 2 > kGuardMaxKeyColumns)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("simhash_reject_near_duplicates: at most %d key columns", kGuardMaxKeyColumns)));

    GuardTarget g;
    g.fp_name = trig->tgargs[0];
    g.max_distance = trig->tgnargs >= 2 ? parse_distance(trig->tgargs[1]) : 3;
    g.nkeys = trig->tgnargs > 2 ? trig->tgnargs - 2 : 0;
    g.key_names = trig->tgnargs > 2 ? trig->tgargs + 2 : nullptr;
    g.trigger_name = trig->tgname;

    const Oid ext_nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
    const Oid fp_type = simhash64_type_in(ext_nsp);
    const AttrNumber fp_attnum = column_of(rel, g.fp_name);
    if (getBaseType(TupleDescAttr(RelationGetDescr(rel), fp_attnum - 1)->atttypid) != fp_type)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("simhash_reject_near_duplicates: column \"%s\" of relation \"%s\" is not of type simhash64",
                               g.fp_name, RelationGetRelationName(rel))));
    for (int i = 0; i < g.nkeys; i++) (void) column_of(rel, g.key_names[i]);

    HeapTuple new_tuple = nullptr, old_tuple = nullptr;
    if (TRIGGER_FIRED_BY_INSERT(td->tg_event)) {
        new_tuple = td->tg_trigtuple;
    } else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event)) {
        old_tuple = td->tg_trigtuple;
        new_tuple = td->tg_newtuple;
    } else if (TRIGGER_FIRED_BY_DELETE(td->tg_event)) {
        old_tuple = td->tg_trigtuple;
    } else {
        protocol_error("must be fired by INSERT, UPDATE or DELETE");
    }
    HeapTuple result = new_tuple ? new_tuple : old_tuple;

    TupleDesc desc = RelationGetDescr(rel);
    bool new_null = true, old_null = true;
    uint64 new_fp = 0, old_fp = 0;
    if (new_tuple) {
        const bool generated = TupleDescAttr(desc, fp_attnum - 1)->attgenerated == ATTRIBUTE_GENERATED_STORED;
        new_fp = DatumGetSimhash64(generated ? generated_value(rel, new_tuple, fp_attnum, &new_null)
                                             : heap_getattr(new_tuple, fp_attnum, desc, &new_null));
    }
    if (old_tuple) old_fp = DatumGetSimhash64(heap_getattr(old_tuple, fp_attnum, desc, &old_null));
    if (new_null && old_null) return PointerGetDatum(result);
    const bool unchanged = new_tuple && old_tuple && new_null == old_null && new_fp == old_fp;

    GuardEntry *entry = guard_entry(trig->tgoid);
    g.root = guard_root(entry, trig, rel);
    g.root_fp_attnum = get_attnum(g.root, g.fp_name);
    if (g.root_fp_attnum == InvalidAttrNumber) elog(ERROR, "column \"%s\" missing in the guarded table", g.fp_name);

    // Every writer of a row takes its buckets, so that no row version near
    // ours can change while we search. A new value's buckets exclusively; a
    // kept, replaced or deleted value's shared: a writer of a near value waits
    // for us and then sees whether the row is still there.
    const bool writes = !new_null && !unchanged;
    lock_buckets(&g, writes, new_fp, !old_null, old_fp);
    if (!writes) return PointerGetDatum(result);

    HeapTuple owner_tup = SearchSysCache1(RELOID, ObjectIdGetDatum(g.root));
    if (!HeapTupleIsValid(owner_tup)) elog(ERROR, "cache lookup failed for relation %u", g.root);
    const Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(owner_tup))->relowner;
    ReleaseSysCache(owner_tup);

    ItemPointerData no_tid;
    ItemPointerSetInvalid(&no_tid);
    Datum values[3] = {
        Simhash64GetDatum(new_fp),
        ObjectIdGetDatum(old_tuple ? RelationGetRelid(rel) : InvalidOid),
        PointerGetDatum(old_tuple ? &old_tuple->t_self : &no_tid),
    };

    if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "simhash guard: SPI_connect failed");
    // Plan and search as the table's owner with row-level security off, as
    // PostgreSQL's foreign-key checks do: the guard must see every row. The
    // plan is prepared in that context too, or it would carry the policies.
    Oid save_userid;
    int save_sec;
    GetUserIdAndSecContext(&save_userid, &save_sec);
    SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
    SPIPlanPtr plan = fetch_plan(entry, &g, ext_nsp, fp_type);
    // SnapshotSelf: every committed row and every row of our own transaction,
    // this statement's earlier rows included. No writer of a row near ours can
    // commit during the search (it would hold one of our buckets), so this
    // equals a snapshot taken now; and, not being MVCC, it takes no SSI
    // predicate locks, so unrelated SERIALIZABLE inserts do not conflict.
    bool found = search(plan, SnapshotSelf, true, values);
    // REPEATABLE READ, SERIALIZABLE: a row committed after our snapshot was
    // taken is a serialization failure, one we can see a plain violation.
    // (Not read-only: SPI then advances the command id and the copied
    // snapshot sees this statement's earlier rows.)
    bool visible = found && (!IsolationUsesXactSnapshot() || search(plan, GetTransactionSnapshot(), false, values));
    SetUserIdAndSecContext(save_userid, save_sec);
    if (visible) guard_report_near_duplicate(&g, SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
    if (found) guard_report_serialization_failure(&g);
    SPI_finish();
    return PointerGetDatum(result);
}
