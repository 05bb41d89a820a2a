// What clobber's bitboards share (the board twin and the solver): boards of at most 64 cells, bit
// `row * columns + column`; OpenSpiel's action `cell * 4 + direction`, the directions up, right,
// down, left in its order.
#pragma once

#include <array>
#include <cstdint>

namespace spiel_bounded {

class ClobberGeometry {
 public:
  static constexpr int kDirections = 4;

  // A board of `rows` x `columns`; the caller checks 1 <= columns < 64 and rows * columns <= 64.
  ClobberGeometry(int rows, int columns) : rows_(rows), columns_(columns) {
    for (int row = 0; row < rows; ++row) {
      first_column_ |= uint64_t{1} << (row * columns);
      last_column_ |= uint64_t{1} << (row * columns + columns - 1);
    }
  }

  int rows() const { return rows_; }
  int columns() const { return columns_; }

  // The pieces of `own` that capture a piece of `other` in each direction.
  std::array<uint64_t, kDirections> Capturers(uint64_t own, uint64_t other) const {
    return {
        own & (other << columns_),            // up
        own & ~last_column_ & (other >> 1),   // right
        own & (other >> columns_),            // down
        own & ~first_column_ & (other << 1),  // left
    };
  }

  // Whether any piece of `own` stands next to one of `other`.
  bool Touch(uint64_t own, uint64_t other) const {
    const std::array<uint64_t, kDirections> capturers = Capturers(own, other);
    return (capturers[0] | capturers[1] | capturers[2] | capturers[3]) != 0;
  }

  // The cell a piece on `from` captures on in `direction`.
  int Target(int from, int direction) const {
    constexpr std::array<int, kDirections> kRowSteps = {-1, 0, 1, 0};
    constexpr std::array<int, kDirections> kColumnSteps = {0, 1, 0, -1};
    return from + kRowSteps[direction] * columns_ + kColumnSteps[direction];
  }

  // The initial checkerboard: player 0's pieces (its piece in the bottom-left corner), then
  // player 1's.
  std::array<uint64_t, 2> Checkerboard() const {
    std::array<uint64_t, 2> pieces = {0, 0};
    for (int row = 0; row < rows_; ++row) {
      for (int column = 0; column < columns_; ++column) {
        pieces[(rows_ - 1 - row + column) % 2] |= uint64_t{1} << (row * columns_ + column);
      }
    }
    return pieces;
  }

 private:
  int rows_;
  int columns_;
  uint64_t first_column_ = 0;
  uint64_t last_column_ = 0;
};

}  // namespace spiel_bounded
