// The lines of a board of at most 64 cells (bit `row * columns + column`): for each cell, the
// masks of the windows of `in_row` cells through it, in the four directions. A piece completes a
// line exactly when one of its cell's windows is all the mover's.
#pragma once

#include <cstdint>
#include <vector>

namespace spiel_bounded {

class LineMasks {
 public:
  static constexpr int kMaxCells = 64;  // one bit a cell

  LineMasks(int rows, int columns, int in_row);

  // Whether `stones` (the mover's, the new piece at `cell` included) fill a window through
  // `cell`.
  bool Completes(uint64_t stones, int cell) const {
    for (int k = first_[cell]; k < first_[cell + 1]; ++k) {
      if ((stones & masks_[k]) == masks_[k]) return true;
    }
    return false;
  }

 private:
  std::vector<uint64_t> masks_;  // the windows of cell c are masks_[first_[c], first_[c + 1])
  std::vector<int> first_;
};

}  // namespace spiel_bounded
