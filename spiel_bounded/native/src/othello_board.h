// othello as two bitboards: a twin of OpenSpiel's `OthelloState`, whose move generation walks
// each direction from each empty cell (a random playout costs ~0.2 ms). Here the moves and the
// discs a move turns are found for all cells at once, a direction at a time, by shifts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"
#include "twins.h"

namespace spiel_bounded {

class OthelloBoard final : public Twin {
 public:
  static constexpr open_spiel::Action kPass = 64;

  // The initial position of `game`, an othello game.
  explicit OthelloBoard(std::shared_ptr<const open_spiel::Game> game);
  // The twin of `state` (an othello state whose history reproduces it), or nullptr.
  static std::unique_ptr<OthelloBoard> From(const open_spiel::State& state);

  open_spiel::Player CurrentPlayer() const override;
  std::vector<open_spiel::Action> LegalActions() const override;
  std::string ActionToString(open_spiel::Player player, open_spiel::Action move) const override;
  std::string ToString() const override;
  bool IsTerminal() const override { return outcome_ != kUnknown; }
  std::vector<double> Returns() const override;
  std::string InformationStateString(open_spiel::Player player) const override;
  void ObservationTensor(open_spiel::Player player, absl::Span<float> values) const override;
  std::unique_ptr<open_spiel::State> Clone() const override;
  void UndoAction(open_spiel::Player player, open_spiel::Action move) override;

 protected:
  void DoApplyAction(open_spiel::Action move) override;

 private:
  static constexpr int kUnknown = -1;  // outcome_: not over; else the winner, or kDraw
  static constexpr int kDraw = 2;

  char Cell(int cell) const;

  uint64_t discs_[2];
  std::vector<uint64_t> turned_;  // the discs each move of the history turned (0 for a pass)
  int player_ = 0;                // to move (after the game ends: who would be)
  int outcome_ = kUnknown;
};

}  // namespace spiel_bounded
