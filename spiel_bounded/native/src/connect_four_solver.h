// A weak solver of connect_four: whether the player to move wins, draws or loses with perfect
// play from a position given by its moves. The board is two bitboards, a column of `rows + 1`
// bits each (the spare top bit keeps lines from running into the next column), searched by
// null-window alpha-beta with a table of bounds, moves ordered by the lines they open, and
// the moves that hand the opponent a win at once never tried. Four in a row only.
#pragma once

#include <cstdint>
#include <vector>

#include "budget.h"

namespace spiel_bounded {

class ConnectFourSolver {
 public:
  // A column of MoveValues that is full.
  static constexpr int kFull = -2;

  // A solver for boards of `rows` x `columns`, (rows + 1) * columns <= 64, columns <= 16 and
  // rows <= 19, with a table of 2^table_bits entries (16 bytes each). Throws std::invalid_argument
  // for another board.
  ConnectFourSolver(int rows, int columns, int table_bits = 22);

  // The value for the player to move after `moves` (columns, 0-based, in order): 1 a win, 0 a
  // draw, -1 a loss. Throws std::invalid_argument when a move is not legal or the game is
  // over, `SearchStopped` when `budget` runs out.
  int Solve(const std::vector<int>& moves, Budget& budget);

  // The value of each column for the player to move after `moves` (1 win, 0 draw, -1 loss),
  // kFull for a full column. Same errors as Solve.
  std::vector<int> MoveValues(const std::vector<int>& moves, Budget& budget);

  // Positions searched since the solver was made.
  int64_t nodes() const { return nodes_; }

 private:
  struct Position {
    uint64_t current = 0;  // the stones of the player to move
    uint64_t mask = 0;     // every stone
    int moves = 0;
  };
  struct Entry {
    uint64_t key = 0;  // `current + mask`; an empty slot's 0 is the empty board's, no bound
    int8_t lower = -1;
    int8_t upper = 1;
  };

  Position Replay(const std::vector<int>& moves) const;
  uint64_t ColumnMask(int column) const;
  uint64_t Playable(const Position& position) const;
  uint64_t Winning(uint64_t stones, uint64_t mask) const;
  static bool Aligned(uint64_t stones, int height);
  bool WinsNow(const Position& position) const;
  uint64_t SafeMoves(const Position& position) const;
  static Position Played(const Position& position, uint64_t move);
  int Negamax(const Position& position, int alpha, int beta, Budget& budget);
  int Value(const Position& position, Budget& budget);
  Entry& Slot(uint64_t key);

  int rows_;
  int columns_;
  uint64_t bottom_ = 0;     // the lowest cell of each column
  uint64_t board_ = 0;      // every cell
  std::vector<int> order_;  // columns from the centre out
  std::vector<Entry> table_;
  int shift_ = 0;  // a key's slot: the top table_bits bits of its hash
  int64_t nodes_ = 0;
};

}  // namespace spiel_bounded
