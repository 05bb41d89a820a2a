// hex as bitboards: a twin of OpenSpiel's `HexState` on square boards of at most 64 cells (bit
// `row * size + column`; the atlas plays 7x7). OpenSpiel's state keeps, for each stone, whether
// its group touches its player's edges, by a flood fill over vectors after each move; here the
// stones, and those that touch each edge, are sets of bits, and the flood fill is by shifts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"
#include "twins.h"

namespace spiel_bounded {

class HexBoard final : public Twin {
 public:
  // The initial position of `game`, a hex game of `size` x `size` <= 64 cells; `swap`: the
  // second player may take the first stone as its own (the pie rule); `explicit_text`: the
  // "explicit" string_rep; `plain_observation`: `plain_obs_tensor`.
  HexBoard(std::shared_ptr<const open_spiel::Game> game, int size, bool swap, bool explicit_text,
           bool plain_observation);
  // The twin of `state` (a hex state on a square board of at most 64 cells whose history
  // reproduces it), or nullptr.
  static std::unique_ptr<HexBoard> From(const open_spiel::State& state);

  open_spiel::Player CurrentPlayer() const override;
  std::vector<open_spiel::Action> LegalActions() const override;
  std::string ActionToString(open_spiel::Player player, open_spiel::Action move) const override;
  std::string ToString() const override;
  bool IsTerminal() const override { return now_.result != 0; }
  std::vector<double> Returns() const override;
  std::string InformationStateString(open_spiel::Player player) const override;
  void ObservationTensor(open_spiel::Player player, absl::Span<float> values) const override;
  std::unique_ptr<open_spiel::State> Clone() const override;
  void UndoAction(open_spiel::Player player, open_spiel::Action move) override;

 protected:
  void DoApplyAction(open_spiel::Action move) override;

 private:
  // A stone's state as OpenSpiel keeps it: plain, touching the player's first edge (north for
  // player 0, west for player 1) or second edge (south, east) through its group, or winning.
  enum class Stone { kNone, kPlain, kFirstEdge, kSecondEdge, kWin };
  struct Position {
    uint64_t stones[2] = {0, 0};
    uint64_t first_edge[2] = {0, 0};  // stones whose group touched the first edge
    uint64_t second_edge[2] = {0, 0};
    uint64_t win = 0;  // the stone that joined the edges
    int player = 0;
    int result = 0;  // +1: player 0 won; -1: player 1
  };

  uint64_t Neighbours(uint64_t cells) const;
  Stone StoneFor(int player, int cell) const;  // what a stone of `player` at `cell` would be
  Stone StoneAt(int player, int cell) const;
  char CellText(int cell) const;
  int PlainPlane(int cell) const;

  int size_;
  int cells_;
  bool swap_;
  bool explicit_text_;
  bool plain_observation_;
  uint64_t board_ = 0;  // every cell
  uint64_t first_row_ = 0, last_row_ = 0, first_column_ = 0, last_column_ = 0;
  Position now_;
  std::vector<Position> before_;  // the position before each move of the history
};

}  // namespace spiel_bounded
