// A solver of clobber: whether the player to move wins or loses with perfect play (the player who
// makes the last capture wins; there are no draws) from a position given by its moves. The
// board is two bitboards (boards of at most 64 cells); a position keeps only the pieces of the
// groups (orthogonally connected pieces) that hold both colours, since a group of one colour
// never moves again; the search is negamax on win / loss with a table of solved positions (two
// slots a bucket, the one with less work below it replaced), children whose solved loss is in
// the table tried first, then the rest by the fewest moves they leave the opponent.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "budget.h"
#include "clobber_geometry.h"

namespace spiel_bounded {

class ClobberSolver {
 public:
  // A solver for boards of `rows` x `columns` <= 64 cells (fewer than 64 columns), with a table
  // of 2^table_bits entries (24 bytes each). Throws std::invalid_argument for another board.
  ClobberSolver(int rows, int columns, int table_bits);

  // The value for the player to move after `moves` (OpenSpiel's clobber actions, in order,
  // from the initial checkerboard): 1 a win, -1 a loss. Throws std::invalid_argument when a
  // move is not legal or the game is over, `SearchStopped` when `budget` runs out.
  int Solve(const std::vector<int64_t>& moves, Budget& budget);

  // Each legal move (OpenSpiel's order) with its value for the player to move after `moves`
  // (1 win, -1 loss). Same errors as Solve.
  std::vector<std::pair<int64_t, int>> MoveValues(const std::vector<int64_t>& moves,
                                                  Budget& budget);

  // A move of perfect play after `moves` and its value (1 win, -1 loss): the first winning move
  // found (the fewest replies first); in a lost position the move whose loss took the most
  // positions to prove. Same errors as Solve.
  std::pair<int64_t, int> BestMove(const std::vector<int64_t>& moves, Budget& budget);

  // Positions searched since the solver was made.
  int64_t nodes() const { return nodes_; }

 private:
  static constexpr int kDirections = ClobberGeometry::kDirections;
  // A move captures across one of the board's at most 112 edges between neighbours.
  static constexpr int kMaxMoves = 112;

  struct Position {
    uint64_t own = 0;    // the pieces of the player to move
    uint64_t other = 0;  // the opponent's
  };
  struct Entry {
    uint64_t own = 0;  // own == other == 0: an empty slot (such a position is never stored)
    uint64_t other = 0;
    uint32_t work = 0;  // positions searched below it, capped
    int8_t value = 0;
  };

  Position Replay(const std::vector<int64_t>& moves) const;
  std::array<uint64_t, kDirections> Capturers(const Position& position) const {
    return geometry_.Capturers(position.own, position.other);
  }
  uint64_t Neighbours(uint64_t cells) const;
  // `position` without its groups of one colour.
  Position Live(const Position& position) const;
  // Captures the player to move has.
  int Mobility(const Position& position) const;
  // The position after the move from `from` to `to`, for the opponent, without dead groups.
  Position Played(const Position& position, uint64_t from, uint64_t to) const;
  // The moves of `position` (action, child), the fewest replies first; `wins` set when one is
  // the last capture or leads to a position the table knows lost (then the list stops there).
  int Children(const Position& position, std::array<std::pair<int64_t, Position>, kMaxMoves>& out,
               bool& wins);
  bool Wins(const Position& position, Budget& budget);
  Entry* Find(const Position& position);
  void Store(const Position& position, bool wins, int64_t work);

  ClobberGeometry geometry_;
  uint64_t board_ = 0;
  std::vector<Entry> table_;
  int shift_ = 0;  // a position's bucket: the top bits of its hash
  int64_t nodes_ = 0;
};

}  // namespace spiel_bounded
