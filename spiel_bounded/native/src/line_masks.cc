#include "line_masks.h"

namespace spiel_bounded {

LineMasks::LineMasks(int rows, int columns, int in_row) {
  constexpr int kDirections[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  const auto inside = [&](int row, int column) {
    return 0 <= row && row < rows && 0 <= column && column < columns;
  };
  first_.push_back(0);
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      for (const auto& direction : kDirections) {
        // The windows starting `back` steps behind the cell.
        for (int back = 0; back < in_row; ++back) {
          uint64_t mask = 0;
          bool fits = true;
          for (int step = 0; step < in_row && fits; ++step) {
            const int r = row + (step - back) * direction[0];
            const int c = column + (step - back) * direction[1];
            fits = inside(r, c);
            if (fits) mask |= uint64_t{1} << (r * columns + c);
          }
          if (fits) masks_.push_back(mask);
        }
        if (in_row == 1) break;  // one window, the cell itself, in every direction
      }
      first_.push_back(static_cast<int>(masks_.size()));
    }
  }
}

}  // namespace spiel_bounded
