// simhash(document text, tokens, shingle, weighting, stop_words, html, seed):
// the fingerprint of a document's text (scheme simhash-text-v1). The text is
// read as UTF-8 in every database encoding, so a document has one fingerprint
// whatever the database. Not STRICT: NULL shingle and stop_words mean their
// defaults; a NULL document or other NULL option gives NULL.
#include "simhash64.hpp"

#include "cpp_boundary.hpp"
#include "text_options.hpp"
#include "utf8_text.hpp"

SIMHASH_FUNCTION(simhash_text) {
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    simhash::TextOptions options;
    if (!text_options_from_args(fcinfo, 1, &options))
        PG_RETURN_NULL();
    text *document = PG_GETARG_TEXT_PP(0);
    std::string_view utf8 = server_text_as_utf8(VARDATA_ANY(document), VARSIZE_ANY_EXHDR(document));
    std::uint64_t fingerprint = 0;
    CPP_CALL("simhash", fingerprint = simhash::fingerprint_text(utf8, options, simhash_interrupt_pending));
    PG_RETURN_SIMHASH64(fingerprint);
}
