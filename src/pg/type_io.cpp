// simhash64 text and binary forms.
#include "simhash64.hpp"

extern "C" {
#include "libpq/pqformat.h"
}

#include <cstring>

#include "text_form.hpp"

SIMHASH_FUNCTION(simhash64_in) {
    const char *text = PG_GETARG_CSTRING(0);
    std::uint64_t value = 0;
    simhash::ParseError err = simhash::parse_hex(text, &value);
    if (err != simhash::ParseError::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type %s: \"%s\"", "simhash64", text),
                        errdetail("%s: expected 16 hexadecimal digits, optionally prefixed by \"0x\".",
                                  simhash::describe(err))));
    PG_RETURN_SIMHASH64(value);
}

SIMHASH_FUNCTION(simhash64_out) {
    char *out = static_cast<char *>(palloc(17));
    simhash::format_hex(PG_GETARG_SIMHASH64(0), out);
    PG_RETURN_CSTRING(out);
}

SIMHASH_FUNCTION(simhash64_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    int remaining = buf->len - buf->cursor;
    if (remaining != 8)
        ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                        errmsg("invalid binary simhash64: %d bytes, expected 8", remaining)));
    PG_RETURN_SIMHASH64(static_cast<std::uint64_t>(pq_getmsgint64(buf)));
}

SIMHASH_FUNCTION(simhash64_send) {
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendint64(&buf, static_cast<int64>(PG_GETARG_SIMHASH64(0)));
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
