// Stop-word lists are installation data, like the dictionaries to_tsvector()
// reads, and simhash(text) stays IMMUTABLE on the same terms: editing a .stop
// file changes fingerprints computed afterwards (in new sessions), so stored
// fingerprints must then be recomputed, as tsvector columns must.
#include "stop_word_lists.hpp"

extern "C" {
#include "postgres.h"
#include "lib/stringinfo.h"
#include "storage/fd.h"
#include "tsearch/ts_public.h"
#include "utils/memutils.h"
}

#include "cpp_boundary.hpp"
#include "stop_word_file.hpp"

namespace {

// Longer than any language name; also bounds what the error message quotes.
constexpr std::size_t kMaxLanguageLength = 63;

struct CachedList {
    char language[kMaxLanguageLength + 1];
    const simhash::StopWords *words;  // never freed: lives as long as the backend
    CachedList *next;
};

CachedList *cached_lists = nullptr;

// The names PostgreSQL itself accepts for tsearch_data files: no path
// separators, dots or upper case can reach the file system.
void check_language_name(const char *language) {
    std::size_t length = strlen(language);
    bool valid = length > 0 && length <= kMaxLanguageLength;
    for (std::size_t i = 0; valid && i < length; ++i) {
        char c = language[i];
        valid = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }
    if (!valid)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid value for option stop_words: \"%s\"", language),
                        errhint("stop_words names a language of PostgreSQL's stop-word lists, "
                                "in lower case, for example \"english\".")));
}

// The file's bytes, palloc'd; ERROR 22023 when there is no such list.
StringInfoData read_list_file(const char *language) {
    char *path = get_tsearch_config_filename(language, "stop");
    FILE *file = AllocateFile(path, PG_BINARY_R);
    if (file == nullptr)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid value for option stop_words: \"%s\"", language),
                        errdetail("Could not open \"%s.stop\" in $SHAREDIR/tsearch_data: %m.", language),
                        errhint("The lists installed are the files *.stop in $SHAREDIR/tsearch_data.")));
    StringInfoData contents;
    initStringInfo(&contents);
    char chunk[8192];
    std::size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0) appendBinaryStringInfo(&contents, chunk, n);
    if (ferror(file))
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not read stop-word list \"%s\": %m", path)));
    FreeFile(file);
    return contents;
}

}  // namespace

const simhash::StopWords *stop_word_list(const char *language) {
    check_language_name(language);
    for (CachedList *entry = cached_lists; entry != nullptr; entry = entry->next)
        if (strcmp(entry->language, language) == 0)
            return entry->words;

    StringInfoData contents = read_list_file(language);
    const simhash::StopWords *words = nullptr;
    CPP_CALL("simhash", words = new simhash::StopWords(simhash::stop_word_file_words(
                            std::string_view(contents.data, static_cast<std::size_t>(contents.len)))));
    pfree(contents.data);
    auto *entry = static_cast<CachedList *>(MemoryContextAllocZero(TopMemoryContext, sizeof(CachedList)));
    strlcpy(entry->language, language, sizeof entry->language);
    entry->words = words;
    entry->next = cached_lists;
    cached_lists = entry;
    return entry->words;
}
