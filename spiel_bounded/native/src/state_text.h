// A state's string, as `str(state)` gives it, read the cheapest exact way.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

// Writes `state.ToString()`, or for connect_four the same text built from the history (the
// game's own ToString appends cell by cell and costs about 5x more). The history is used only
// when it reproduces the root's board (a state built from a board string has no history), and
// then it does for every state below the root too: a child's board is its parent's plus the
// move, as its history is. `tests/test_native_alphabeta.py` compares both texts over random
// games.
class StateText {
 public:
  explicit StateText(const open_spiel::State& root);

  // Writes the text of `state` (the root or a state below it) into `out`.
  void Write(const open_spiel::State& state, std::string& out) const;

  bool from_history() const { return columns_ > 0; }

  // The board of `state` (the root or a state below it) as the cells each player's pieces
  // fill, one bit a cell, where the text comes from the history and the board has at most 64
  // cells; else false. Two states have the same stones exactly when they have the same text.
  // connect_four's twin (`ConnectFourBoard`) gives its own bitboards, in the same layout.
  bool Stones(const open_spiel::State& state, uint64_t stones[2]) const;

 private:
  void FromHistory(const open_spiel::State& state, std::string& out) const;
  // Drops the pieces of `state`'s history one by one, `place(player, height, column)` for each
  // (height 0: the bottom row); false, part way, at a step that is not a connect_four move.
  // `FullHistory` is read by reference (`History` would copy it).
  template <typename Place>
  bool Replay(const open_spiel::State& state, Place place) const {
    std::fill(heights_.begin(), heights_.end(), 0);
    for (const open_spiel::State::PlayerAction& step : state.FullHistory()) {
      const int column = static_cast<int>(step.action);
      if (column < 0 || column >= columns_ || heights_[column] >= rows_ || step.player < 0 ||
          step.player > 1) {
        return false;
      }
      place(step.player, heights_[column]++, column);
    }
    return true;
  }

  int rows_ = 0;
  int columns_ = 0;  // > 0: connect_four text from the history
  std::string empty_board_;
  mutable std::vector<int> heights_;  // reused: no allocation per text
};

}  // namespace spiel_bounded
