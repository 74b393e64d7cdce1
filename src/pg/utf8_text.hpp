// Text in the database encoding, seen as UTF-8. Features hash their UTF-8 bytes,
// so a fingerprint is the same in a UTF8, LATIN1 or any other database.
#pragma once

extern "C" {
#include "postgres.h"
#include "mb/pg_wchar.h"
}

#include <cstring>
#include <string_view>

// The result points into `bytes` when no conversion is needed (UTF8 and
// SQL_ASCII databases), else into a palloc'd copy. Raises the usual conversion
// error for characters UTF-8 cannot represent (none in practice).
static inline std::string_view server_text_as_utf8(const char *bytes, int length) {
    const char *utf8 = pg_server_to_any(bytes, length, PG_UTF8);
    if (utf8 == bytes)
        return std::string_view(bytes, static_cast<std::size_t>(length));
    return std::string_view(utf8, std::strlen(utf8));
}
