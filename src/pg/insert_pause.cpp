// A pause for isolation tests, PostgreSQL 15 having no injection points. An
// insert waits for the advisory lock `simhash.insert_pause_lock` (0, the
// default: no pause) at two points where another session may split the pages
// it is heading for: just after weakening a downlink's summary, holding no
// lock or pin on the index's pages (spec insert_weaken_split), and between
// its leaf's share and exclusive locks, holding only the leaf's pin (spec
// insert_split_step_right). Its transaction's locks, and a heap page pin COPY
// or a concurrent build's validation may hold, stay. Superusers only: set for
// a database or by a trigger, it would let a role stall other roles' inserts
// on a lock it holds.
#include "index.hpp"

extern "C" {
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
}

int simhash_insert_pause_lock = 0;

void simhash_define_insert_pause() {
    DefineCustomIntVariable("simhash.insert_pause_lock",
                            "Tests only: an insert waits for this advisory lock where a concurrent split matters.",
                            "0 (the default) never waits.", &simhash_insert_pause_lock, 0, 0, INT_MAX, PGC_SUSET,
                            GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("simhash");
}

void simhash_insert_wait() {
    Datum lock = Int64GetDatum(simhash_insert_pause_lock);
    DirectFunctionCall1(pg_advisory_lock_int8, lock);
    DirectFunctionCall1(pg_advisory_unlock_int8, lock);
}
