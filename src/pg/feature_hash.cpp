// simhash_feature_hash(feature, hash): the 64-bit hash a feature votes with,
// so fingerprints made elsewhere from pre-computed hashes can be reproduced.
#include "simhash64.hpp"

extern "C" {
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
}

#include "feature_hash.hpp"
#include "jenkins_hash.hpp"

SIMHASH_FUNCTION(simhash_feature_hash_text) {
    text *feature = PG_GETARG_TEXT_PP(0);
    char *hash_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
    const char *bytes = VARDATA_ANY(feature);
    int length = VARSIZE_ANY_EXHDR(feature);
    // Features are hashed as UTF-8 in every database encoding.
    const char *utf8 = pg_server_to_any(bytes, length, PG_UTF8);
    if (utf8 != bytes)
        length = strlen(utf8);
    std::string_view view(utf8, length);

    std::uint64_t hash;
    if (strcmp(hash_name, "xxh3") == 0)
        hash = simhash::feature_hash(view, 0);
    else if (strcmp(hash_name, "jenkins") == 0)
        hash = simhash::jenkins_hash(view);
    else
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid value for option hash: \"%s\"", hash_name),
                        errhint("hash must be \"xxh3\" or \"jenkins\".")));
    PG_RETURN_INT64(static_cast<int64>(hash));
}
