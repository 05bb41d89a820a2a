#include "state_text.h"

#include <algorithm>
#include <vector>

#include "connect_four_board.h"

namespace spiel_bounded {

StateText::StateText(const open_spiel::State& root) {
  const std::shared_ptr<const open_spiel::Game> game = root.GetGame();
  if (game->GetType().short_name != "connect_four") return;
  const open_spiel::GameParameters params = game->GetParameters();
  const int rows = params.at("rows").int_value();
  const int columns = params.at("columns").int_value();
  std::string row(columns, '.');
  row += '\n';
  std::string empty;
  for (int r = 0; r < rows; ++r) empty += row;
  rows_ = rows;
  columns_ = columns;
  heights_.assign(columns, 0);
  empty_board_ = empty;
  std::string text;
  FromHistory(root, text);
  if (text != root.ToString()) columns_ = 0;  // not reproduced: read ToString()
}

void StateText::Write(const open_spiel::State& state, std::string& out) const {
  if (columns_ > 0) {
    FromHistory(state, out);
  } else {
    out = state.ToString();
  }
}

void StateText::FromHistory(const open_spiel::State& state, std::string& out) const {
  // Pieces fall to the bottom row, which is printed last.
  out = empty_board_;
  const int stride = columns_ + 1;
  const bool replayed = Replay(state, [&](int player, int height, int column) {
    out[(rows_ - 1 - height) * stride + column] = player == 0 ? 'x' : 'o';
  });
  if (!replayed) out = state.ToString();  // not a connect_four history after all
}

bool StateText::Stones(const open_spiel::State& state, uint64_t stones[2]) const {
  if (columns_ == 0 || rows_ * columns_ > 64) return false;
  if (const auto* board = dynamic_cast<const ConnectFourBoard*>(&state)) {
    stones[0] = board->stones()[0];
    stones[1] = board->stones()[1];
    return true;
  }
  stones[0] = stones[1] = 0;
  return Replay(state, [&](int player, int height, int column) {
    stones[player] |= uint64_t{1} << (height * columns_ + column);
  });
}

}  // namespace spiel_bounded
