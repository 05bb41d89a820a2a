// A board plane of an observation as bits: how the derived inputs (connection_planes.h,
// territory_planes.h) read boards of at most 128 cells.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace spiel_bounded {

__extension__ typedef unsigned __int128 CellBits;  // a bit a cell

// The entries of `values[0, count)` (count <= 128) that are not 0: bit k for entry k.
inline CellBits NonZeroBits(const float* values, int count) {
  // A 64-bit word at a time: shifting a 128-bit value by a variable costs several instructions.
  uint64_t words[2] = {0, 0};
  for (int word = 0; word * 64 < count; ++word) {
    const float* entries = values + word * 64;
    const int size = std::min(64, count - word * 64);
    uint64_t bits = 0;
    int k = 0;
#if defined(__SSE2__)
    // Four entries a compare: the sign bits of the lanes that are not 0.
    const __m128 zero = _mm_setzero_ps();
    for (; k + 4 <= size; k += 4) {
      const int set = _mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(entries + k), zero));
      bits |= static_cast<uint64_t>(set) << k;
    }
#endif
    for (; k < size; ++k) bits |= uint64_t{entries[k] != 0.0f} << k;
    words[word] = bits;
  }
  return (CellBits{words[1]} << 64) | words[0];
}

// ORs `bits` into the packed bits `words` from bit `offset` on (bit k of `bits` to bit offset + k);
// `words` holds every bit set.
inline void DepositBits(uint64_t* words, int offset, CellBits bits) {
  for (int half = 0; half < 2; ++half, offset += 64) {
    const uint64_t part = static_cast<uint64_t>(bits >> (64 * half));
    if (part == 0) continue;
    const int word = offset / 64, shift = offset % 64;
    words[word] |= part << shift;
    if (shift != 0 && (part >> (64 - shift)) != 0) words[word + 1] |= part >> (64 - shift);
  }
}

}  // namespace spiel_bounded
