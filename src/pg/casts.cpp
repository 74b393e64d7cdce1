// Casts between simhash64 and bit(64) / bytea, bit-exact both ways. (bigint is
// binary-coercible: same 8 bytes, same by-value passing, no function needed.)
#include "simhash64.hpp"

extern "C" {
#include "utils/varbit.h"
}

#include "hamming.hpp"

static std::uint64_t load_big_endian(const unsigned char *bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | bytes[i];
    return v;
}

static void store_big_endian(std::uint64_t v, unsigned char *bytes) {
    for (int i = 7; i >= 0; --i) {
        bytes[i] = static_cast<unsigned char>(v & 0xFF);
        v >>= 8;
    }
}

// The first bit of the bit string is the most significant bit of the
// fingerprint, as in bigint::bit(64).
SIMHASH_FUNCTION(simhash64_from_bit) {
    VarBit *bits = PG_GETARG_VARBIT_P(0);
    if (VARBITLEN(bits) != simhash::kBits)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot cast a bit string of length %d to simhash64", VARBITLEN(bits)),
                        errdetail("A simhash64 has exactly 64 bits.")));
    PG_RETURN_SIMHASH64(load_big_endian(VARBITS(bits)));
}

// A cast function that takes the target typmod, so "::bit" (which means bit(1))
// is an error instead of a silent truncation to the first bit.
SIMHASH_FUNCTION(simhash64_to_bit) {
    std::uint64_t value = PG_GETARG_SIMHASH64(0);
    int32 typmod = PG_GETARG_INT32(1);
    if (typmod >= 0 && typmod != simhash::kBits)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot cast simhash64 to bit(%d)", typmod),
                        errhint("A simhash64 has 64 bits: cast it to bit(64).")));
    VarBit *bits = static_cast<VarBit *>(palloc0(VARBITTOTALLEN(simhash::kBits)));
    SET_VARSIZE(bits, VARBITTOTALLEN(simhash::kBits));
    bits->bit_len = simhash::kBits;
    store_big_endian(value, VARBITS(bits));
    PG_RETURN_VARBIT_P(bits);
}

SIMHASH_FUNCTION(simhash64_from_bytea) {
    bytea *bytes = PG_GETARG_BYTEA_PP(0);
    int length = VARSIZE_ANY_EXHDR(bytes);
    if (length != 8)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("cannot cast a bytea of length %d to simhash64", length),
                        errdetail("A simhash64 is exactly 8 bytes, most significant first.")));
    PG_RETURN_SIMHASH64(load_big_endian(reinterpret_cast<const unsigned char *>(VARDATA_ANY(bytes))));
}

SIMHASH_FUNCTION(simhash64_to_bytea) {
    bytea *bytes = static_cast<bytea *>(palloc(VARHDRSZ + 8));
    SET_VARSIZE(bytes, VARHDRSZ + 8);
    store_big_endian(PG_GETARG_SIMHASH64(0), reinterpret_cast<unsigned char *>(VARDATA(bytes)));
    PG_RETURN_BYTEA_P(bytes);
}
