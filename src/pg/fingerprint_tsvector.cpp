// simhash(tsvector): the lexemes as features, each weighted by its number of
// positions (1 when the tsvector is stripped). PostgreSQL's text-search
// configurations so bring stemming, stop words and languages to fingerprints:
// simhash(to_tsvector('english', body)). Position labels (A-D) are ignored.
#include "simhash64.hpp"

extern "C" {
#include "tsearch/ts_type.h"
}

#include "cpp_boundary.hpp"
#include "feature_hash.hpp"
#include "hash_vote.hpp"
#include "utf8_text.hpp"

SIMHASH_FUNCTION(simhash_tsvector) {
    TSVector vector = PG_GETARG_TSVECTOR(0);
    const int count = vector->size;
    WordEntry *entries = ARRPTR(vector);
    auto *hashes = static_cast<std::uint64_t *>(palloc(sizeof(std::uint64_t) * (count + 1)));
    auto *weights = static_cast<simhash::FixedWeight *>(palloc(sizeof(simhash::FixedWeight) * (count + 1)));
    for (int i = 0; i < count; ++i) {
        if (i % 4096 == 0)
            CHECK_FOR_INTERRUPTS();
        const WordEntry *entry = &entries[i];
        hashes[i] = simhash::feature_hash(server_text_as_utf8(STRPTR(vector) + entry->pos, entry->len), 0);
        const int positions = entry->haspos ? POSDATALEN(vector, entry) : 1;
        weights[i] = simhash::kUnitWeight * positions;
    }
    std::uint64_t fingerprint = 0;
    CPP_CALL("simhash",
             fingerprint = simhash::fingerprint_hashes(hashes, weights, count, simhash_interrupt_pending));
    PG_RETURN_SIMHASH64(fingerprint);
}
