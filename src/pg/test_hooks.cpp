// Settings for isolation, regression and TAP tests, superusers only, hidden
// from SHOW ALL.
//
// simhash.test_pause_lock: a pause, PostgreSQL 15 having no injection
// points: a session waits for the advisory lock `simhash.test_pause_lock` (0,
// the default: no pause) where another session's writes to the pages it is
// heading for matter. An insert waits just after weakening a downlink's
// summary, holding no lock or pin on the index's pages (spec
// insert_weaken_split), and between its leaf's share and exclusive locks,
// holding only the leaf's pin (spec insert_split_step_right). A walk that lets
// writers in (simhash_index_info; simhash_index_check on a hot standby) waits
// after copying each internal page, before reading its children (pages split
// meanwhile), and before each table after the first (rows committed
// meanwhile), holding no pin (spec info_walk_split, TAP 010). A scan that
// checks its hits' entries before returning them (index-only, also ordered;
// non-MVCC, such as the guard's) waits before it pins a leaf to check, holding
// no pin on the index (spec index_only_vacuum), though after its first row
// the executor may hold a heap page's pin. Its
// transaction's locks, and a heap page pin COPY or a concurrent build's
// validation may hold, stay. Superusers only: set for a database or by a
// trigger, it would let a role stall other roles' inserts on a lock it holds.
//
// simhash.test_probe_always: scans beyond max_distance probe wherever the
// layout allows (sx::plan_scan's probe limit aside) instead of sweeping
// where the probes would read more. Answers are the same either way; it lets
// a regression test of a small table reach the probes of two, three and four
// flips, which pay only past a million rows.
#include "index.hpp"

extern "C" {
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
}

int simhash_test_pause_lock = 0;
bool simhash_test_probe_always = false;

void simhash_define_test_hooks() {
    DefineCustomIntVariable("simhash.test_pause_lock",
                            "Tests only: inserts and index walks wait for this advisory lock where concurrent writes matter.",
                            "0 (the default) never waits.", &simhash_test_pause_lock, 0, 0, INT_MAX, PGC_SUSET,
                            GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL, nullptr, nullptr, nullptr);
    DefineCustomBoolVariable("simhash.test_probe_always",
                             "Tests only: scans beyond max_distance probe wherever the layout allows.",
                             "Off (the default): they sweep where the probes would read more.",
                             &simhash_test_probe_always, false, PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
                             nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("simhash");
}

void simhash_test_wait() {
    Datum lock = Int64GetDatum(simhash_test_pause_lock);
    DirectFunctionCall1(pg_advisory_lock_int8, lock);
    DirectFunctionCall1(pg_advisory_unlock_int8, lock);
}
