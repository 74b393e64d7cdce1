// simhash(features text[] [, weights float8[]]) and simhash(hashes bigint[]
// [, weights float8[]]): fingerprints of features the caller chose. Text
// features are hashed like simhash(text) hashes its own (XXH3-64, seed 0, over
// their UTF-8 bytes); bigint hashes vote as they are, which is
// seomoz/simhash-cpp's compute() when unweighted.
#include "simhash64.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/float.h"
}

#include "cpp_boundary.hpp"
#include "feature_hash.hpp"
#include "hash_vote.hpp"
#include "utf8_text.hpp"

// A one-dimensional array without NULLs, as a C array of Datums. `what` names
// the argument in errors.
static int array_elements(ArrayType *array, Oid element_type, int16 element_length, bool by_value,
                          char align, const char *what, Datum **elements) {
    if (ARR_NDIM(array) > 1)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("simhash: %s must be a one-dimensional array, not %d-dimensional", what,
                               ARR_NDIM(array))));
    bool *nulls;
    int count;
    deconstruct_array(array, element_type, element_length, by_value, align, elements, &nulls, &count);
    for (int i = 0; i < count; ++i)
        if (nulls[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("simhash: %s must not contain NULL", what),
                            errdetail("Element %d of %d is NULL.", i + 1, count)));
    return count;
}

// One fixed-point weight per feature, or an error naming the first bad one.
static simhash::FixedWeight *fixed_weights(ArrayType *array, int feature_count, const char *features_name) {
    Datum *elements;
    int count = array_elements(array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, "weights",
                               &elements);
    if (count != feature_count)
        ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                        errmsg("simhash: %d %s but %d weights", feature_count, features_name, count),
                        errhint("Give exactly one weight per feature.")));
    auto *fixed = static_cast<simhash::FixedWeight *>(palloc(sizeof(simhash::FixedWeight) * (count + 1)));
    int bad = -1;
    CPP_CALL("simhash", for (int i = 0; i < count; ++i) {
        if (!simhash::to_fixed_weight(DatumGetFloat8(elements[i]), &fixed[i])) {
            bad = i;
            break;
        }
    });
    if (bad >= 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("simhash: invalid weight %s at position %d",
                               float8out_internal(DatumGetFloat8(elements[bad])), bad + 1),
                        errhint("A weight is a finite number from 0 up to, but excluding, 2^31 (2147483648).")));
    return fixed;
}

static Datum vote(const std::uint64_t *hashes, const simhash::FixedWeight *weights, int count) {
    std::uint64_t fingerprint = 0;
    CPP_CALL("simhash",
             fingerprint = simhash::fingerprint_hashes(hashes, weights, count, simhash_interrupt_pending));
    return Simhash64GetDatum(fingerprint);
}

static std::uint64_t *text_feature_hashes(ArrayType *array, int *count) {
    Datum *elements;
    *count = array_elements(array, TEXTOID, -1, false, TYPALIGN_INT, "features", &elements);
    auto *hashes = static_cast<std::uint64_t *>(palloc(sizeof(std::uint64_t) * (*count + 1)));
    for (int i = 0; i < *count; ++i) {
        if (i % 4096 == 0)
            CHECK_FOR_INTERRUPTS();
        text *feature = DatumGetTextPP(elements[i]);
        hashes[i] = simhash::feature_hash(server_text_as_utf8(VARDATA_ANY(feature), VARSIZE_ANY_EXHDR(feature)), 0);
    }
    return hashes;
}

static std::uint64_t *bigint_hashes(ArrayType *array, int *count) {
    Datum *elements;
    *count = array_elements(array, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, "hashes", &elements);
    auto *hashes = static_cast<std::uint64_t *>(palloc(sizeof(std::uint64_t) * (*count + 1)));
    for (int i = 0; i < *count; ++i) hashes[i] = static_cast<std::uint64_t>(DatumGetInt64(elements[i]));
    return hashes;
}

SIMHASH_FUNCTION(simhash_text_array) {
    int count;
    std::uint64_t *hashes = text_feature_hashes(PG_GETARG_ARRAYTYPE_P(0), &count);
    return vote(hashes, nullptr, count);
}

SIMHASH_FUNCTION(simhash_text_array_weighted) {
    int count;
    std::uint64_t *hashes = text_feature_hashes(PG_GETARG_ARRAYTYPE_P(0), &count);
    return vote(hashes, fixed_weights(PG_GETARG_ARRAYTYPE_P(1), count, "features"), count);
}

SIMHASH_FUNCTION(simhash_bigint_array) {
    int count;
    std::uint64_t *hashes = bigint_hashes(PG_GETARG_ARRAYTYPE_P(0), &count);
    return vote(hashes, nullptr, count);
}

SIMHASH_FUNCTION(simhash_bigint_array_weighted) {
    int count;
    std::uint64_t *hashes = bigint_hashes(PG_GETARG_ARRAYTYPE_P(0), &count);
    return vote(hashes, fixed_weights(PG_GETARG_ARRAYTYPE_P(1), count, "hashes"), count);
}
