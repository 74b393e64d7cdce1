#include "hash_vote.hpp"

namespace simhash {

namespace {
// A weighted add touches 64 wide counters: a few thousand of them take
// microseconds, so polling this often keeps cancel prompt at no visible cost.
constexpr std::size_t kPollEvery = 4096;
}  // namespace

std::uint64_t fingerprint_hashes(const std::uint64_t *hashes, const FixedWeight *weights, std::size_t count,
                                 InterruptCheck interrupted) {
    Vote vote;
    for (std::size_t i = 0; i < count; ++i) {
        if (i % kPollEvery == kPollEvery - 1 && interrupted && interrupted())
            throw Error(Error::Kind::cancelled, "fingerprint cancelled");
        if (weights)
            vote.add(hashes[i], weights[i]);
        else
            vote.add_unit(hashes[i]);
    }
    return vote.fingerprint();
}

}  // namespace simhash
