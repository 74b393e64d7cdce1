// simhash_ball: text and binary forms, constructor, accessors, and the
// containment operators "fp <@ ball" / "ball @> fp".
#include "simhash_ball.hpp"

extern "C" {
#include "libpq/pqformat.h"
}

#include "ball_text.hpp"
#include "hamming.hpp"

static void check_radius(int64 radius) {
    if (radius < 0 || radius > simhash::kMaxRadius)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_ball radius %lld is out of range", static_cast<long long>(radius)),
                        errhint("The radius must be between 0 and 64 bits.")));
}

static Datum make_ball(std::uint64_t center, int32 radius) {
    SimhashBall *ball = static_cast<SimhashBall *>(palloc0(sizeof(SimhashBall)));
    ball->center = center;
    ball->radius = radius;
    return PointerGetDatum(ball);
}

SIMHASH_FUNCTION(simhash_ball_in) {
    const char *text = PG_GETARG_CSTRING(0);
    simhash::BallParse parsed = simhash::parse_ball(text);
    if (parsed.error == simhash::BallParseError::radius_range)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_ball radius is out of range in \"%s\"", text),
                        errhint("The radius must be between 0 and 64 bits.")));
    if (parsed.error != simhash::BallParseError::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type %s: \"%s\"", "simhash_ball", text),
                        errdetail("%s%s%s: expected 16 hexadecimal digits, \"/\" and a radius, "
                                  "as in \"0123456789abcdef/3\".",
                                  simhash::describe(parsed.error),
                                  parsed.error == simhash::BallParseError::bad_center ? ": " : "",
                                  parsed.error == simhash::BallParseError::bad_center
                                      ? simhash::describe(parsed.center_error)
                                      : "")));
    return make_ball(parsed.center, parsed.radius);
}

SIMHASH_FUNCTION(simhash_ball_out) {
    const SimhashBall *ball = PG_GETARG_SIMHASH_BALL(0);
    char *out = static_cast<char *>(palloc(simhash::kBallTextSize));
    simhash::format_ball(ball->center, ball->radius, out);
    PG_RETURN_CSTRING(out);
}

// Wire form: the center as int8, then the radius as int4 (12 bytes).
SIMHASH_FUNCTION(simhash_ball_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    int remaining = buf->len - buf->cursor;
    if (remaining != 12)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid binary simhash_ball: %d bytes, expected 12", remaining)));
    std::uint64_t center = static_cast<std::uint64_t>(pq_getmsgint64(buf));
    int32 radius = static_cast<int32>(pq_getmsgint(buf, 4));
    check_radius(radius);
    return make_ball(center, radius);
}

SIMHASH_FUNCTION(simhash_ball_send) {
    const SimhashBall *ball = PG_GETARG_SIMHASH_BALL(0);
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendint64(&buf, static_cast<int64>(ball->center));
    pq_sendint32(&buf, ball->radius);
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

SIMHASH_FUNCTION(simhash_ball_make) {
    int32 radius = PG_GETARG_INT32(1);
    check_radius(radius);
    return make_ball(PG_GETARG_SIMHASH64(0), radius);
}

SIMHASH_FUNCTION(simhash_ball_center) {
    PG_RETURN_SIMHASH64(PG_GETARG_SIMHASH_BALL(0)->center);
}

SIMHASH_FUNCTION(simhash_ball_radius) {
    PG_RETURN_INT32(PG_GETARG_SIMHASH_BALL(0)->radius);
}

static bool in_ball(std::uint64_t fp, const SimhashBall *ball) {
    return simhash::hamming_distance(fp, ball->center) <= ball->radius;
}

SIMHASH_FUNCTION(simhash64_in_ball) {
    PG_RETURN_BOOL(in_ball(PG_GETARG_SIMHASH64(0), PG_GETARG_SIMHASH_BALL(1)));
}

SIMHASH_FUNCTION(simhash_ball_contains) {
    PG_RETURN_BOOL(in_ball(PG_GETARG_SIMHASH64(1), PG_GETARG_SIMHASH_BALL(0)));
}
