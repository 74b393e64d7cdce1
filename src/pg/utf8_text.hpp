// Text in the database encoding, seen as UTF-8. Features hash their UTF-8 bytes,
// so a fingerprint is the same in a UTF8, LATIN1 or any other database.
#pragma once

extern "C" {
#include "postgres.h"
#include "mb/pg_wchar.h"
}

#include <cstring>
#include <string_view>

// The result points into `bytes` when no conversion is needed, else into a
// palloc'd copy. A SQL_ASCII database's bytes are taken as they are (the core
// treats bytes that are not UTF-8 as separators), where pg_server_to_any would
// reject them.
static inline std::string_view server_text_as_utf8(const char *bytes, int length) {
    const int encoding = GetDatabaseEncoding();
    if (encoding == PG_UTF8 || encoding == PG_SQL_ASCII)
        return std::string_view(bytes, static_cast<std::size_t>(length));
    const char *utf8 = pg_server_to_any(bytes, length, PG_UTF8);
    if (utf8 == bytes)
        return std::string_view(bytes, static_cast<std::size_t>(length));
    return std::string_view(utf8, std::strlen(utf8));
}
