// Equality and unsigned order for the B-tree and hash operator classes.
#include "simhash64.hpp"

extern "C" {
#include "common/hashfn.h"
#include "utils/fmgrprotos.h"
#include "utils/sortsupport.h"
}

#define SIMHASH_COMPARISON(name, op)                                   \
    SIMHASH_FUNCTION(name) {                                           \
        PG_RETURN_BOOL(PG_GETARG_SIMHASH64(0) op PG_GETARG_SIMHASH64(1)); \
    }

SIMHASH_COMPARISON(simhash64_eq, ==)
SIMHASH_COMPARISON(simhash64_ne, !=)
SIMHASH_COMPARISON(simhash64_lt, <)
SIMHASH_COMPARISON(simhash64_le, <=)
SIMHASH_COMPARISON(simhash64_gt, >)
SIMHASH_COMPARISON(simhash64_ge, >=)

static int compare_unsigned(std::uint64_t a, std::uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

SIMHASH_FUNCTION(simhash64_cmp) {
    PG_RETURN_INT32(compare_unsigned(PG_GETARG_SIMHASH64(0), PG_GETARG_SIMHASH64(1)));
}

static int simhash64_fastcmp(Datum a, Datum b, SortSupport) {
    return compare_unsigned(DatumGetSimhash64(a), DatumGetSimhash64(b));
}

SIMHASH_FUNCTION(simhash64_sortsupport) {
    SortSupport ssup = reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0));
    ssup->comparator = simhash64_fastcmp;
    PG_RETURN_VOID();
}

// The same hashes as int8's, so a fingerprint hashes like its bigint cast.
SIMHASH_FUNCTION(simhash64_hash) {
    PG_RETURN_DATUM(DirectFunctionCall1(hashint8, PG_GETARG_DATUM(0)));
}

SIMHASH_FUNCTION(simhash64_hash_extended) {
    PG_RETURN_DATUM(DirectFunctionCall2(hashint8extended, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}
