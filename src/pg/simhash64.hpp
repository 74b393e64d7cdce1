// The simhash64 type in the glue: a 64-bit fingerprint passed by value.
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

#include <cstdint>

static_assert(SIZEOF_DATUM == 8, "simhash64 is passed by value: needs 64-bit Datums");

static inline std::uint64_t DatumGetSimhash64(Datum d) { return static_cast<std::uint64_t>(DatumGetInt64(d)); }
static inline Datum Simhash64GetDatum(std::uint64_t v) { return Int64GetDatum(static_cast<int64>(v)); }

#define PG_GETARG_SIMHASH64(n) DatumGetSimhash64(PG_GETARG_DATUM(n))
#define PG_RETURN_SIMHASH64(v) return Simhash64GetDatum(v)

// Every SQL-callable function is declared through this, so its symbol has C linkage.
#define SIMHASH_FUNCTION(name)           \
    extern "C" {                         \
    PG_FUNCTION_INFO_V1(name);           \
    }                                    \
    extern "C" Datum name(PG_FUNCTION_ARGS)
