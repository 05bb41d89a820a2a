// The package's twins of OpenSpiel's states: boards of bits that answer every question a search
// asks (player, legal moves, terminal, returns, text, observation, history) as OpenSpiel's state
// of the same game does, faster, and that take moves back (`UndoAction`). A search steps through
// a twin where the game has one (`SearchCopy`); `tests/test_native_twins.py` compares each twin
// with OpenSpiel's state over random games.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

// What the twins share: they are OpenSpiel states on at most `kMaxCells` cells (a bit each) that
// take moves back, whose observation string is their text (as in each of OpenSpiel's games they
// twin).
class Twin : public open_spiel::State {
 public:
  static constexpr int kMaxCells = 64;

  using open_spiel::State::State;

  std::string ObservationString(open_spiel::Player player) const override { return ToString(); }

 protected:
  // Every bit of a board of `cells` <= 64 cells.
  static uint64_t AllCells(int cells) {
    return cells == kMaxCells ? ~uint64_t{0} : (uint64_t{1} << cells) - 1;
  }
  // The returns of a two-player game that `winner` (0 or 1) won; else a draw, or not over.
  static std::vector<double> WinnerReturns(int winner) {
    if (winner == 0) return {1.0, -1.0};
    if (winner == 1) return {-1.0, 1.0};
    return {0.0, 0.0};
  }
  // What OpenSpiel's `ApplyAction` recorded of the move an `UndoAction` takes back.
  void ForgetLastMove() {
    history_.pop_back();
    --move_number_;
  }
};

// The integer parameter `name` of `game` (its default included), or nullopt where it has none.
std::optional<int> IntParameter(const open_spiel::Game& game, const std::string& name);

// The twin of `state` (connect_four, othello, breakthrough, clobber, hex), or nullptr: another
// game, a board larger than the twin's bits, or a state its history does not reproduce (one built
// from a board).
std::unique_ptr<open_spiel::State> TwinOf(const open_spiel::State& state);

// A copy of `state` for a search to step through: its twin where it has one, else OpenSpiel's own
// clone. `exported`: the states go to Python (a callback evaluator), which then gets OpenSpiel's
// own.
std::unique_ptr<open_spiel::State> SearchCopy(const open_spiel::State& state, bool exported);

// Whether `state` is one of the twins (which take moves back by `UndoAction`).
bool IsTwin(const open_spiel::State& state);

// `board`, a twin's initial position, after `state`'s history, or nullptr when a move of the
// history is not legal on it or the board it reaches does not print as `state` does.
template <class Board>
std::unique_ptr<Board> Replayed(std::unique_ptr<Board> board, const open_spiel::State& state) {
  for (const open_spiel::State::PlayerAction& step : state.FullHistory()) {
    if (board->IsTerminal() || step.player != board->CurrentPlayer()) return nullptr;
    const std::vector<open_spiel::Action> legal = board->LegalActions();
    if (std::find(legal.begin(), legal.end(), step.action) == legal.end()) return nullptr;
    board->ApplyAction(step.action);
  }
  if (board->ToString() != state.ToString() || board->IsTerminal() != state.IsTerminal()) {
    return nullptr;
  }
  return board;
}

}  // namespace spiel_bounded
