#include "lifted_amazon.h"

#include <vector>

#include "amazons_observation.h"

namespace spiel_bounded {
namespace {

constexpr int kTurnActions = 3;  // lifted.TURN_ACTIONS: the amazon, its destination, the arrow

}  // namespace

std::optional<LiftedAmazon> LiftedAmazon::For(const open_spiel::Game& game) {
  if (game.GetType().short_name != "amazons") return std::nullopt;
  const int rows = game.GetParameters().at("board_size").int_value();
  return LiftedAmazon(rows * rows);
}

void LiftedAmazon::Restore(const open_spiel::State& state, float* observation) const {
  const std::vector<open_spiel::State::PlayerAction>& history = state.FullHistory();
  if (history.size() % kTurnActions != 1) return;
  const open_spiel::Action cell = history.back().action;
  observation[amazons_observation::kEmptyPlane * cells_ + cell] = 0.0F;
  observation[amazons_observation::kPlayerPlanes[state.CurrentPlayer()] * cells_ + cell] = 1.0F;
}

}  // namespace spiel_bounded
