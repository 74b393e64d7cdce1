// Run-time choice of instruction set: the build targets plain x86-64 (SSE2),
// and the hot loops that gain from AVX2 (or POPCNT, or AVX-512) have a second
// form compiled for it with __attribute__((target(...))), taken when the CPU
// running the code has it. No -mavx2 for the whole build: the library must
// load on any x86-64.
#pragma once

// (Only over an SSE2 build: the AVX2 forms are second forms of SSE2 paths.
// The POPCNT and AVX-512 forms of the leaf sweep use the same gate.)
#if defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define SIMHASH_X86_DISPATCH 1
#endif

namespace simhash {

#ifdef SIMHASH_X86_DISPATCH
// Asked once, then cached.
bool cpu_has_avx2() noexcept;
bool cpu_has_popcnt() noexcept;
// AVX-512 Foundation with VPOPCNTQ (and BMI2, which every such CPU has).
bool cpu_has_avx512_popcount() noexcept;
#endif

}  // namespace simhash
