#include "twins.h"

#include "breakthrough_board.h"
#include "clobber_board.h"
#include "connect_four_board.h"
#include "hex_board.h"
#include "othello_board.h"

namespace spiel_bounded {

std::unique_ptr<open_spiel::State> TwinOf(const open_spiel::State& state) {
  const std::string& game = state.GetGame()->GetType().short_name;
  if (game == "connect_four") return ConnectFourBoard::From(state);
  if (game == "othello") return OthelloBoard::From(state);
  if (game == "breakthrough") return BreakthroughBoard::From(state);
  if (game == "clobber") return ClobberBoard::From(state);
  if (game == "hex") return HexBoard::From(state);
  return nullptr;
}

std::unique_ptr<open_spiel::State> SearchCopy(const open_spiel::State& state, bool exported) {
  if (!exported) {
    if (std::unique_ptr<open_spiel::State> twin = TwinOf(state)) return twin;
  }
  return state.Clone();
}

std::optional<int> IntParameter(const open_spiel::Game& game, const std::string& name) {
  const open_spiel::GameParameters params = game.GetParameters();
  const auto found = params.find(name);
  if (found == params.end()) return std::nullopt;
  return found->second.int_value();
}

bool IsTwin(const open_spiel::State& state) { return dynamic_cast<const Twin*>(&state) != nullptr; }

}  // namespace spiel_bounded
