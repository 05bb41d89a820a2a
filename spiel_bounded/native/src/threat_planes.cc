#include "threat_planes.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "connect_four_board.h"
#include "heuristics_games.h"

namespace spiel_bounded {

ThreatPlanes::ThreatPlanes(const open_spiel::Game& game) {
  int rows = 3, columns = 3;
  if (const std::optional<ConnectFourShape> shape = ConnectFourShapeOf(game)) {
    rows = shape->rows;
    columns = shape->columns;
    in_row_ = shape->in_row;
    empty_plane_ = 2;
    player_planes_ = {0, 1};
  } else if (game.GetType().short_name == "tic_tac_toe") {
    in_row_ = 3;
    empty_plane_ = 0;
    player_planes_ = {2, 1};
  } else {
    throw std::invalid_argument("value network: inputs = threats reads the lines of a line game; " +
                                GameDescription(game) +
                                " has none; accepted: connect_four (absolute observation), "
                                "tic_tac_toe, or inputs = observation");
  }
  cells_ = rows * columns;
  if (cells_ > kMaxCells) {
    throw std::invalid_argument("value network: inputs = threats reads boards of at most " +
                                std::to_string(kMaxCells) + " cells; " + GameDescription(game) +
                                " has " + std::to_string(cells_));
  }
  const auto on_board = [&](int row, int column) {
    return row >= 0 && row < rows && column >= 0 && column < columns;
  };
  if (in_row_ > std::max(rows, columns)) return;  // no line fits: no threats
  constexpr int kDirections[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (const auto& [down, right] : kDirections) {
    Direction direction;
    direction.shift = down * columns + right;
    direction.ahead.assign(in_row_, 0);
    direction.behind.assign(in_row_, 0);
    for (int step = 1; step < in_row_; ++step) {
      for (int row = 0; row < rows; ++row) {
        for (int column = 0; column < columns; ++column) {
          const uint64_t bit = uint64_t{1} << (row * columns + column);
          if (on_board(row + step * down, column + step * right)) direction.ahead[step] |= bit;
          if (on_board(row - step * down, column - step * right)) direction.behind[step] |= bit;
        }
      }
    }
    directions_.push_back(std::move(direction));
  }
}

ThreatPlanes::Stones ThreatPlanes::Read(const float* observation) const {
  Stones stones;
  const float* empty = observation + empty_plane_ * cells_;
  const float* pieces[2] = {observation + player_planes_[0] * cells_,
                            observation + player_planes_[1] * cells_};
  for (int cell = 0; cell < cells_; ++cell) {
    stones.empty |= uint64_t{empty[cell] != 0.0f} << cell;
    stones.pieces[0] |= uint64_t{pieces[0][cell] != 0.0f} << cell;
    stones.pieces[1] |= uint64_t{pieces[1][cell] != 0.0f} << cell;
  }
  return stones;
}

std::array<uint64_t, 2> ThreatPlanes::Of(const Stones& stones) const {
  // An empty cell is a player's threat where, along some direction, the player's pieces fill the
  // in_row - 1 other cells of a window through it: with the cell at place j of the window, the
  // j cells behind it and the in_row - 1 - j ahead. `ahead[k]` marks the cells whose k-th cell
  // ahead is the player's (the masks keep a shift from wrapping round the board's edge).
  std::array<uint64_t, 2> threats = {0, 0};
  std::array<uint64_t, kMaxCells> ahead, behind;
  for (int player = 0; player < 2; ++player) {
    const uint64_t pieces = stones.pieces[player];
    uint64_t found = 0;
    for (const Direction& direction : directions_) {
      for (int step = 1; step < in_row_; ++step) {
        const int bits = step * direction.shift;
        ahead[step] = bits < kMaxCells ? (pieces >> bits) & direction.ahead[step] : 0;
        behind[step] = bits < kMaxCells ? (pieces << bits) & direction.behind[step] : 0;
      }
      for (int place = 0; place < in_row_; ++place) {
        uint64_t filled = ~uint64_t{0};
        for (int step = 1; step <= place; ++step) filled &= behind[step];
        for (int step = 1; step < in_row_ - place; ++step) filled &= ahead[step];
        found |= filled;
      }
    }
    threats[player] = found & stones.empty;
  }
  return threats;
}

int ThreatPlanes::StoneEntries(const Stones& stones, int first, int* entries) const {
  const std::array<uint64_t, 2> threats = Of(stones);
  int count = 0;
  for (int player = 0; player < 2; ++player) {
    for (uint64_t bits = threats[player]; bits != 0; bits &= bits - 1) {
      entries[count++] = first + player * cells_ + __builtin_ctzll(bits);
    }
  }
  return count;
}

}  // namespace spiel_bounded
