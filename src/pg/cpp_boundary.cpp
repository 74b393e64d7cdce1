#include "cpp_boundary.hpp"

void report_cpp_failure(const CppFailure *failure, const char *context) {
    if (failure->cancelled) {
        CHECK_FOR_INTERRUPTS();
        /* The flag was cleared or interrupts are held: still stop. */
        ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("canceling statement due to user request")));
    }
    ereport(ERROR, (errcode(failure->sqlstate), errmsg("%s: %s", context, failure->message)));
}

bool simhash_interrupt_pending() {
    return QueryCancelPending || ProcDiePending;
}
