// The amazons heuristic: the twin of spiel_bounded/evaluators/heuristics_amazons.py. The score,
// from player 0's side, is kTerritory times the difference of the cells each side reaches first
// by queen moves, plus the difference of the cells each reaches in one move; the values are
// 0.95 tanh(score / kScale) around the middle of the utility range.
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "heuristics_games.h"
#include "lifted_amazon.h"
#include "territory_planes.h"

namespace spiel_bounded {
namespace {

constexpr int kTerritory = 5;         // AMAZONS_TERRITORY
constexpr double kScale = 50.0;       // AMAZONS_SCALE
constexpr double kConfidence = 0.95;  // _CONFIDENCE

class AmazonsHeuristic final : public Evaluator {
 public:
  AmazonsHeuristic(const open_spiel::Game& game, LiftedAmazon lifted)
      : planes_(game), lifted_(lifted), observation_(game.ObservationTensorSize()) {
    const double low = game.MinUtility(), high = game.MaxUtility();
    mid_ = 0.5 * (low + high);
    half_ = 0.5 * (high - low) * kConfidence;
  }

  double Value(const open_spiel::State& state, int player) override {
    const double offset = Offset(state);
    return player == 0 ? mid_ + offset : mid_ - offset;
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const double offset = Offset(state);
    out.assign({mid_ + offset, mid_ - offset});
  }

  std::string name() const override { return "heuristic"; }

 private:
  double Offset(const open_spiel::State& state) {
    state.ObservationTensor(0, absl::MakeSpan(observation_));
    lifted_.Restore(state, observation_.data());
    const std::array<int, TerritoryPlanes::kPlanes> counts = planes_.Counts(observation_.data());
    const int score = kTerritory * (counts[0] - counts[1]) + (counts[3] - counts[4]);
    return half_ * std::tanh(score * (1.0 / kScale));
  }

  TerritoryPlanes planes_;
  LiftedAmazon lifted_;
  double mid_ = 0.0;
  double half_ = 0.0;
  std::vector<float> observation_;  // scratch of `Offset`
};

}  // namespace

std::unique_ptr<Evaluator> MakeAmazonsHeuristic(const open_spiel::Game& game) {
  if (game.GetType().short_name != "amazons") return nullptr;
  const int rows = game.GetParameters().at("board_size").int_value();
  // OpenSpiel's boards (6, 8, 10 rows) all fit; a larger one would be left to Python.
  if (rows * rows > TerritoryPlanes::kMaxCells) return nullptr;
  return std::make_unique<AmazonsHeuristic>(game, *LiftedAmazon::For(game));
}

}  // namespace spiel_bounded
