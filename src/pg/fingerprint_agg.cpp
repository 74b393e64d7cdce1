// simhash_agg(feature text, weight float8) and simhash_agg(hash bigint, weight
// float8): the fingerprint of features stored as rows. The state is a Vote in
// the aggregate's memory context; parallel plans merge partial votes (exact
// integer sums, so the result does not depend on the plan). Rows with a NULL
// feature or weight are skipped; no counted row gives NULL.
#include "simhash64.hpp"

extern "C" {
#include "utils/float.h"
}

#include <new>
#include <type_traits>

#include "cpp_boundary.hpp"
#include "feature_hash.hpp"
#include "utf8_text.hpp"
#include "vote.hpp"

// The state lives in palloc'd memory and is dropped with its context: it must
// need no destructor, and copying its bytes must copy it.
static_assert(std::is_trivially_destructible<simhash::Vote>::value, "Vote is freed with its memory context");
static_assert(std::is_trivially_copyable<simhash::Vote>::value, "Vote is copied as bytes");

// palloc aligns to 8 bytes; Vote holds __int128 counters that want 16.
static simhash::Vote *new_vote(MemoryContext context) {
    void *raw = MemoryContextAlloc(context, sizeof(simhash::Vote) + alignof(simhash::Vote));
    void *aligned = reinterpret_cast<void *>(TYPEALIGN(alignof(simhash::Vote), raw));
    simhash::Vote *vote = nullptr;
    CPP_CALL("simhash_agg", vote = new (aligned) simhash::Vote());
    return vote;
}

static MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char *function) {
    MemoryContext context;
    if (!AggCheckCallContext(fcinfo, &context))
        elog(ERROR, "%s called in a non-aggregate context", function);
    return context;
}

static simhash::Vote *state_arg(FunctionCallInfo fcinfo, int n) {
    return PG_ARGISNULL(n) ? nullptr : reinterpret_cast<simhash::Vote *>(PG_GETARG_POINTER(n));
}

static simhash::FixedWeight row_weight(double weight) {
    simhash::FixedWeight fixed = 0;
    bool valid = false;
    CPP_CALL("simhash_agg", valid = simhash::to_fixed_weight(weight, &fixed));
    if (!valid)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash_agg: invalid weight %s", float8out_internal(weight)),
                        errhint("A weight is a finite number from 0 up to, but excluding, 2^31 (2147483648).")));
    return fixed;
}

static Datum add_row(FunctionCallInfo fcinfo, std::uint64_t hash, simhash::FixedWeight weight) {
    simhash::Vote *vote = state_arg(fcinfo, 0);
    if (vote == nullptr)
        vote = new_vote(aggregate_context(fcinfo, "simhash_agg"));
    if (weight == simhash::kUnitWeight)
        CPP_CALL("simhash_agg", vote->add_unit(hash));
    else
        CPP_CALL("simhash_agg", vote->add(hash, weight));
    PG_RETURN_POINTER(vote);
}

static Datum skip_row(FunctionCallInfo fcinfo) {
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

SIMHASH_FUNCTION(simhash_agg_text_transfn) {
    aggregate_context(fcinfo, "simhash_agg");
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
        return skip_row(fcinfo);
    text *feature = PG_GETARG_TEXT_PP(1);
    simhash::FixedWeight weight = row_weight(PG_GETARG_FLOAT8(2));
    std::uint64_t hash =
        simhash::feature_hash(server_text_as_utf8(VARDATA_ANY(feature), VARSIZE_ANY_EXHDR(feature)), 0);
    return add_row(fcinfo, hash, weight);
}

SIMHASH_FUNCTION(simhash_agg_bigint_transfn) {
    aggregate_context(fcinfo, "simhash_agg");
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
        return skip_row(fcinfo);
    simhash::FixedWeight weight = row_weight(PG_GETARG_FLOAT8(2));
    return add_row(fcinfo, static_cast<std::uint64_t>(PG_GETARG_INT64(1)), weight);
}

SIMHASH_FUNCTION(simhash_agg_finalfn) {
    simhash::Vote *vote = state_arg(fcinfo, 0);
    if (vote == nullptr)
        PG_RETURN_NULL();
    std::uint64_t fingerprint = 0;
    CPP_CALL("simhash_agg", fingerprint = vote->fingerprint());
    PG_RETURN_SIMHASH64(fingerprint);
}

SIMHASH_FUNCTION(simhash_agg_combinefn) {
    MemoryContext context = aggregate_context(fcinfo, "simhash_agg_combine");
    simhash::Vote *into = state_arg(fcinfo, 0);
    simhash::Vote *from = state_arg(fcinfo, 1);
    if (from == nullptr) {
        if (into == nullptr)
            PG_RETURN_NULL();
        PG_RETURN_POINTER(into);
    }
    if (into == nullptr) {
        // The result must live in the aggregate's context, not the partial state's.
        into = new_vote(context);
        *into = *from;
    } else {
        CPP_CALL("simhash_agg", into->merge(*from));
    }
    PG_RETURN_POINTER(into);
}

SIMHASH_FUNCTION(simhash_agg_serialfn) {
    aggregate_context(fcinfo, "simhash_agg_serialize");
    const simhash::Vote *vote = state_arg(fcinfo, 0);
    bytea *image = static_cast<bytea *>(palloc(VARHDRSZ + simhash::Vote::kSerializedSize));
    SET_VARSIZE(image, VARHDRSZ + simhash::Vote::kSerializedSize);
    auto *out = reinterpret_cast<unsigned char *>(VARDATA(image));
    CPP_CALL("simhash_agg", vote->serialize(out));
    PG_RETURN_BYTEA_P(image);
}

SIMHASH_FUNCTION(simhash_agg_deserialfn) {
    MemoryContext context = aggregate_context(fcinfo, "simhash_agg_deserialize");
    bytea *image = PG_GETARG_BYTEA_PP(0);
    if (VARSIZE_ANY_EXHDR(image) != simhash::Vote::kSerializedSize)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("simhash_agg: a serialized state has %d bytes, not %zu",
                               static_cast<int>(VARSIZE_ANY_EXHDR(image)), simhash::Vote::kSerializedSize)));
    simhash::Vote *vote = new_vote(context);
    const auto *in = reinterpret_cast<const unsigned char *>(VARDATA_ANY(image));
    CPP_CALL("simhash_agg", *vote = simhash::Vote::deserialize(in));
    PG_RETURN_POINTER(vote);
}
