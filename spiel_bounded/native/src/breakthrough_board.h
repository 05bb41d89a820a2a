// breakthrough as two bitboards: a twin of OpenSpiel's `BreakthroughState` (boards of at most 64
// cells, bit `row * columns + column`). OpenSpiel's state copies a vector board with each child
// and unranks each move through vectors; here a move is two bits changed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"
#include "twins.h"

namespace spiel_bounded {

class BreakthroughBoard final : public Twin {
 public:
  // The initial position of `game`, a breakthrough game of `rows` x `columns` <= 64 cells.
  BreakthroughBoard(std::shared_ptr<const open_spiel::Game> game, int rows, int columns);
  // The twin of `state` (a breakthrough state on at most 64 cells whose history reproduces it),
  // or nullptr.
  static std::unique_ptr<BreakthroughBoard> From(const open_spiel::State& state);

  open_spiel::Player CurrentPlayer() const override;
  std::vector<open_spiel::Action> LegalActions() const override;
  std::string ActionToString(open_spiel::Player player, open_spiel::Action move) const override;
  std::string ToString() const override;
  bool IsTerminal() const override;
  std::vector<double> Returns() const override;
  void ObservationTensor(open_spiel::Player player, absl::Span<float> values) const override;
  std::unique_ptr<open_spiel::State> Clone() const override;
  void UndoAction(open_spiel::Player player, open_spiel::Action move) override;

 protected:
  void DoApplyAction(open_spiel::Action move) override;

 private:
  // A move as OpenSpiel ranks it (from, direction, capture): the cells it leaves and reaches.
  struct Move {
    int from;
    int to;
    bool capture;
  };
  Move Unrank(open_spiel::Action move) const;
  // OpenSpiel's rank of a move: from cell `from` in `direction` (0-2 forward for player 0, 3-5
  // for player 1: left, straight, right), capturing or not.
  open_spiel::Action Rank(int from, int direction, bool capture) const;
  int Winner() const;  // 0 or 1, or -1 while the game goes on

  int rows_;
  int columns_;
  uint64_t board_ = 0;  // every cell
  uint64_t first_column_ = 0;
  uint64_t last_column_ = 0;
  uint64_t pieces_[2] = {0, 0};
  int player_ = 0;
  int reached_ = -1;  // the player whose piece reached the far row, or -1
};

}  // namespace spiel_bounded
