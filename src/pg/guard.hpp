// The near-duplicate guard trigger: shared declarations of its glue files.
#pragma once

extern "C" {
#include "postgres.h"
#include "executor/spi.h"
}

// Advisory locks of the guard carry this in their fourth field (pg_locks.objsubid),
// which pg_advisory_lock() never uses (1 and 2), so they never meet an
// application's advisory locks.
constexpr uint16 kGuardLockTagField4 = 0x5348;

// Most key columns the error can name, as for an index.
constexpr int kGuardMaxKeyColumns = 32;

// What the search query returns when it finds an existing row, in column order.
enum GuardResultColumn {
    kGuardColFingerprint = 1,
    kGuardColDistance = 2,
    kGuardColFirstKey = 3,
};

// One guard: a trigger and the table whose rows it compares against.
struct GuardTarget {
    Oid root;                    // the table the trigger was created on (a partition's ancestor)
    AttrNumber root_fp_attnum;   // the fingerprint column in that table
    int max_distance;
    int nkeys;
    char *const *key_names;      // the trigger's arguments; valid while the trigger is
    const char *fp_name;
    const char *trigger_name;
};

// Raises 23P01 for the existing row `tuple` found by the search, showing only
// the values the current user may read, as PostgreSQL's own constraint errors do.
pg_attribute_noreturn() void guard_report_near_duplicate(const GuardTarget *g, HeapTuple tuple, TupleDesc desc);

// Raises 40001: the near-duplicate committed after this transaction's snapshot.
pg_attribute_noreturn() void guard_report_serialization_failure(const GuardTarget *g);
