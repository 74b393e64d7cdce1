// simhash_tfidf(document, idf, <the options of simhash(text)>): the fingerprint
// with each feature weighted by tf x idf, idf read from document-frequency
// statistics (simhash_df_build). STABLE, not IMMUTABLE: the statistics are a
// table, read once per query and call site (idf_table.hpp).
#include "simhash64.hpp"

#include "cpp_boundary.hpp"
#include "idf_table.hpp"
#include "text_options.hpp"
#include "utf8_text.hpp"

SIMHASH_FUNCTION(simhash_tfidf_text) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
        PG_RETURN_NULL();
    simhash::TextOptions options;
    if (!text_options_from_args(fcinfo, 2, &options))
        PG_RETURN_NULL();
    const simhash::DocumentFrequencies idf = idf_table_for_call(fcinfo, PG_GETARG_TEXT_PP(1));
    options.idf = &idf;
    text *document = PG_GETARG_TEXT_PP(0);
    std::string_view utf8 = server_text_as_utf8(VARDATA_ANY(document), VARSIZE_ANY_EXHDR(document));
    std::uint64_t fingerprint = 0;
    CPP_CALL("simhash_tfidf", fingerprint = simhash::fingerprint_text(utf8, options, simhash_interrupt_pending));
    PG_RETURN_SIMHASH64(fingerprint);
}
