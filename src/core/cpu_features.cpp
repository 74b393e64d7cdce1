#include "cpu_features.hpp"

namespace simhash {

#ifdef SIMHASH_X86_DISPATCH
bool cpu_has_avx2() noexcept {
    // __builtin_cpu_init: the answer may be needed before libgcc's own
    // constructor has run (a static initializer of another library).
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return has;
}

bool cpu_has_popcnt() noexcept {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt") != 0;
    }();
    return has;
}

bool cpu_has_avx512_popcount() noexcept {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    }();
    return has;
}
#endif

}  // namespace simhash
