#include "text_options.hpp"

extern "C" {
#include "utils/builtins.h"
}

#include <type_traits>

#include "stop_word_lists.hpp"

// Options are built in glue frames that may raise errors.
static_assert(std::is_trivially_destructible<simhash::TextOptions>::value, "TextOptions must need no destructor");

namespace {

// Positions after the document, in the order of the SQL signature.
enum OptionArg { kTokens, kShingle, kWeighting, kStopWords, kHtml, kSeed };

pg_attribute_noreturn() void bad_option(const char *option, const char *value, const char *hint) {
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid value for option %s: \"%s\"", option, value), errhint("%s", hint)));
}

simhash::TextOptions::Tokens parse_tokens(const char *value) {
    if (strcmp(value, "words") == 0)
        return simhash::TextOptions::Tokens::words;
    if (strcmp(value, "chars") == 0)
        return simhash::TextOptions::Tokens::chars;
    bad_option("tokens", value, "tokens must be \"words\" or \"chars\".");
}

simhash::TextOptions::Weighting parse_weighting(const char *value) {
    if (strcmp(value, "tf") == 0)
        return simhash::TextOptions::Weighting::tf;
    if (strcmp(value, "binary") == 0)
        return simhash::TextOptions::Weighting::binary;
    if (strcmp(value, "log_tf") == 0)
        return simhash::TextOptions::Weighting::log_tf;
    bad_option("weighting", value, "weighting must be \"tf\", \"binary\" or \"log_tf\".");
}

}  // namespace

bool text_options_from_args(FunctionCallInfo fcinfo, int first, simhash::TextOptions *options) {
    for (int arg : {kTokens, kWeighting, kHtml, kSeed})
        if (PG_ARGISNULL(first + arg))
            return false;
    *options = simhash::TextOptions();
    options->tokens = parse_tokens(text_to_cstring(PG_GETARG_TEXT_PP(first + kTokens)));
    options->weighting = parse_weighting(text_to_cstring(PG_GETARG_TEXT_PP(first + kWeighting)));
    if (PG_ARGISNULL(first + kShingle)) {
        const bool chars = options->tokens == simhash::TextOptions::Tokens::chars;
        options->shingle = chars ? simhash::kDefaultCharShingle : simhash::kDefaultWordShingle;
    } else {
        int32 shingle = PG_GETARG_INT32(first + kShingle);
        if (shingle < 1 || shingle > simhash::kMaxShingle)
            bad_option("shingle", psprintf("%d", shingle),
                       psprintf("shingle must be between 1 and %d.", simhash::kMaxShingle));
        options->shingle = shingle;
    }
    if (!PG_ARGISNULL(first + kStopWords))
        options->stop_words = stop_word_list(text_to_cstring(PG_GETARG_TEXT_PP(first + kStopWords)));
    options->html = PG_GETARG_BOOL(first + kHtml);
    options->seed = static_cast<std::uint64_t>(PG_GETARG_INT64(first + kSeed));
    return true;
}
