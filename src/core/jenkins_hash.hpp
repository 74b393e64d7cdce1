// Bob Jenkins' lookup3 hashlittle2 over a feature's bytes, seed 0, returned as
// (c << 32) | b: the feature hash of yanyiwu/simhash, of seomoz's older releases
// and of the interoperability proposal for similarity hashes. Offered only so
// fingerprints made by those libraries can be reproduced; XXH3 stays the default.
#pragma once
#include <cstdint>
#include <string_view>

namespace simhash {

std::uint64_t jenkins_hash(std::string_view bytes) noexcept;

}  // namespace simhash
