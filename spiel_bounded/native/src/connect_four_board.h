// connect_four as two bitboards: a twin of OpenSpiel's `ConnectFourState` that the alpha-beta
// engine searches by ApplyAction / UndoAction. OpenSpiel's state has no undo, so each of its
// children is a copy, and each move scans the whole board for a line (a quarter of a depth-6
// search's time); this one checks the windows through the new piece only (`LineMasks`). It answers
// every question a search asks (player, legal moves, terminal, returns, text, observation, history)
// as OpenSpiel's does: `tests/test_native_connect_four_board.py` compares them over random games.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "line_masks.h"
#include "open_spiel/spiel.h"
#include "twins.h"

namespace spiel_bounded {

// The board of a connect_four game that writes the absolute observation (not
// `egocentric_obs_tensor`), or nullopt for any other game.
struct ConnectFourShape {
  int rows;
  int columns;
  int in_row;
};
std::optional<ConnectFourShape> ConnectFourShapeOf(const open_spiel::Game& game);

class ConnectFourBoard final : public Twin {
 public:
  // The empty board of `game`, a connect_four game of `rows` x `columns` <= 64 cells.
  ConnectFourBoard(std::shared_ptr<const open_spiel::Game> game, int rows, int columns, int in_row);
  // The twin of `state` (a connect_four state whose history reproduces its board, on at most
  // 64 cells, with the absolute observation), or nullptr for any other state.
  static std::unique_ptr<ConnectFourBoard> From(const open_spiel::State& state);

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

  // The cells each player's pieces fill, bit `height * columns + column` (`StateText::Stones`).
  const uint64_t* stones() const { return stones_; }

 protected:
  void DoApplyAction(open_spiel::Action move) override;

 private:
  static constexpr int kUnknown = -1;  // outcome_: not over; else the winner, or kDraw
  static constexpr int kDraw = 2;

  bool Filled(int player, int height, int column) const;

  int rows_;
  int columns_;
  std::shared_ptr<const LineMasks> lines_;
  uint64_t stones_[2] = {0, 0};
  std::array<uint8_t, 64> heights_{};  // pieces in each column
  int pieces_ = 0;
  int player_ = 0;  // to move (after the game ends: who would be)
  int outcome_ = kUnknown;
};

}  // namespace spiel_bounded
