// simhash_ball: the set of fingerprints within `radius` bits of `center`, the
// right-hand side of "fp <@ ball" that carries k with the query (no GUC).
#pragma once

#include "simhash64.hpp"

struct SimhashBall {
    std::uint64_t center;
    int32 radius;      // 0..64, checked wherever a ball is made
    int32 reserved;    // always 0, so equal balls are equal bytes
};
static_assert(sizeof(SimhashBall) == 16, "simhash_ball is INTERNALLENGTH 16");

static inline const SimhashBall *DatumGetSimhashBall(Datum d) {
    return reinterpret_cast<const SimhashBall *>(DatumGetPointer(d));
}

#define PG_GETARG_SIMHASH_BALL(n) DatumGetSimhashBall(PG_GETARG_DATUM(n))

// The constructor simhash_ball(center, radius); the estimators recognise a
// call to it by its address, whatever schema or name it was given.
extern "C" Datum simhash_ball_make(PG_FUNCTION_ARGS);
