// clobber as two bitboards: a twin of OpenSpiel's `ClobberState` (boards of at most 64 cells, bit
// `row * columns + column`). OpenSpiel's state scans every cell's neighbours after each move to
// see whether a capture is left; here that is two shifts.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clobber_geometry.h"
#include "open_spiel/spiel.h"
#include "twins.h"

namespace spiel_bounded {

class ClobberBoard final : public Twin {
 public:
  // The initial position of `game`, a clobber game of `rows` x `columns` <= 64 cells.
  ClobberBoard(std::shared_ptr<const open_spiel::Game> game, int rows, int columns);
  // The twin of `state` (a clobber state on at most 64 cells whose history reproduces it), or
  // nullptr.
  static std::unique_ptr<ClobberBoard> From(const open_spiel::State& state);

  open_spiel::Player CurrentPlayer() const override;
  std::vector<open_spiel::Action> LegalActions() const override;
  std::string ActionToString(open_spiel::Player player, open_spiel::Action move) const override;
  std::string ToString() const override;
  bool IsTerminal() const override { return winner_ >= 0; }
  std::vector<double> Returns() const override;
  std::string InformationStateString(open_spiel::Player player) const override;
  void ObservationTensor(open_spiel::Player player, absl::Span<float> values) const override;
  std::unique_ptr<open_spiel::State> Clone() const override;
  void UndoAction(open_spiel::Player player, open_spiel::Action move) override;

 protected:
  void DoApplyAction(open_spiel::Action move) override;

 private:
  int Target(open_spiel::Action move) const;  // the cell a move captures on
  std::string RowLabel(int row) const;

  ClobberGeometry geometry_;  // the board's size and its captures' shifts
  std::array<uint64_t, 2> pieces_;
  int player_ = 0;
  int winner_ = -1;  // the player who made the last capture, once none is left
};

}  // namespace spiel_bounded
