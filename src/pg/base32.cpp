// RFC 4648 base32 text of a fingerprint, the form proposed for exchanging
// similarity hashes: 13 lower-case characters, no padding.
#include "simhash64.hpp"

extern "C" {
#include "utils/builtins.h"
}

#include "text_form.hpp"

SIMHASH_FUNCTION(simhash64_to_base32) {
    char out[14];
    simhash::format_base32(PG_GETARG_SIMHASH64(0), out);
    PG_RETURN_TEXT_P(cstring_to_text(out));
}

// A wrong number of characters (none included) is a wrong length, 22023; a
// character outside the alphabet or a non-canonical last character is bad
// syntax, 22P02. Either way the message quotes the input.
SIMHASH_FUNCTION(simhash64_from_base32) {
    const char *input = text_to_cstring(PG_GETARG_TEXT_PP(0));
    std::uint64_t value = 0;
    simhash::ParseError err = simhash::parse_base32(input, &value);
    if (err == simhash::ParseError::empty || err == simhash::ParseError::bad_length)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid base32 simhash64 \"%s\": %zu characters, expected 13", input,
                               strlen(input))));
    if (err != simhash::ParseError::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid base32 simhash64: \"%s\"", input),
                        errdetail("%s: expected 13 characters of the RFC 4648 base32 alphabet (a-z, 2-7).",
                                  simhash::describe(err))));
    PG_RETURN_SIMHASH64(value);
}
