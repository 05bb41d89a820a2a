#include "features.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "heuristics_games.h"

namespace spiel_bounded {
namespace {

// `features.next_mover`: who moves once chance has acted (player 0 if the game ends first).
int NextMover(const open_spiel::State& state) {
  std::unique_ptr<open_spiel::State> next = state.Clone();
  while (next->IsChanceNode()) next->ApplyAction(next->LegalActions()[0]);
  return std::max(next->CurrentPlayer(), 0);
}

}  // namespace

Features::Features(const open_spiel::Game& game, const FeatureViews& views)
    : players_(game.NumPlayers()),
      observation_size_(0),
      next_mover_(views.chance == "next_mover"),
      bits_(players_ + 1, 0.0f) {
  if (views.chance != "next_mover" && views.chance != "player_0") {
    throw std::invalid_argument("value network: unknown chance view '" + views.chance +
                                "'; accepted: next_mover, player_0");
  }
  if (views.lifted != "restored" && views.lifted != "observed") {
    throw std::invalid_argument("value network: unknown lifted view '" + views.lifted +
                                "'; accepted: restored, observed");
  }
  if (views.lifted == "restored") lifted_ = LiftedAmazon::For(game);
  if (!game.GetType().provides_observation_tensor) {
    throw std::invalid_argument("value network: " + GameDescription(game) +
                                " has no observation tensor, which a value network reads");
  }
  observation_size_ = game.ObservationTensorSize();
  observation_ = std::make_unique<open_spiel::Observation>(
      game, game.MakeObserver(std::nullopt, open_spiel::GameParameters{}));
  // The observer writes every tensor into one buffer that it never reallocates (Python reads it
  // as one array, `Features.observation`): its start is read once.
  if (observation_->HasTensor()) {
    const std::vector<open_spiel::SpanTensor> tensors = observation_->tensors();
    int size = 0;
    for (const open_spiel::SpanTensor& tensor : tensors) {
      if (tensor.data().data() != tensors[0].data().data() + size) size = -1;
      if (size < 0) break;
      size += static_cast<int>(tensor.data().size());
    }
    if (size == observation_size_) observed_ = tensors[0].data().data();
  }
  if (observed_ == nullptr) {
    throw std::invalid_argument("value network: the default observer of " + GameDescription(game) +
                                " does not write the observation tensor in one piece");
  }
}

void Features::Observe(const open_spiel::State& state) {
  const int mover = state.CurrentPlayer();
  std::fill(bits_.begin(), bits_.end(), 0.0f);
  if (mover >= 0) {
    ObserveAs(state, mover);
    bits_[mover] = 1.0f;
  } else if (!next_mover_) {
    ObserveAs(state, 0);
    bits_[players_] = 1.0f;
  } else {
    const int observer = NextMover(state);
    ObserveAs(state, observer);
    bits_[observer] = 1.0f;
    bits_[players_] = 1.0f;
  }
}

void Features::ObserveAs(const open_spiel::State& state, int observer) {
  observation_->SetFrom(state, observer);
  if (lifted_) lifted_->Restore(state, observed_);
}

void Features::Write(const open_spiel::State& state, float* out) {
  Observe(state);
  std::copy(observed_, observed_ + observation_size_, out);
  std::copy(bits_.begin(), bits_.end(), out + observation_size_);
}

}  // namespace spiel_bounded
