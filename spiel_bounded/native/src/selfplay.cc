#include "selfplay.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

namespace spiel_bounded {
namespace {

using open_spiel::Action;
using open_spiel::State;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// SEARCH_LABEL_WIDTH and EXACT_WIDTH of training/selfplay.py, as shares of the value range.
constexpr double kSearchLabelWidth = 0.1;
constexpr double kExactWidth = 1e-9;

std::string KeyOf(const State& state) {
  return std::to_string(state.CurrentPlayer()) + "|" + state.ToString();
}

// The bounds a search result reports: its last iteration's, else the whole value range.
struct RootBounds {
  double lower;
  double upper;
};

class GameRows {
 public:
  GameRows(const open_spiel::Game& game, Features& features, const SelfPlayRules& rules)
      : features_(features),
        rules_(rules),
        players_(game.NumPlayers()),
        vmin_(game.MinUtility()),
        vmax_(game.MaxUtility()) {
    game_.size = features.size();
    game_.players = players_;
  }

  // A position played, before its move, with what its search (if any) said of it.
  void Played(const State& state, const AlphaBetaOutcome* outcome) {
    Append(game_.played, state);
    if (outcome == nullptr) {
      Nothing(game_.played);
      game_.search.insert(game_.search.end(), players_, kNaN);
      game_.exact.push_back(0);
      return;
    }
    const int mover = state.CurrentPlayer();
    const RootBounds bounds = Bounds(*outcome);
    const double width = bounds.upper - bounds.lower;
    if (width > kSearchLabelWidth * (vmax_ - vmin_)) {
      game_.search.insert(game_.search.end(), players_, kNaN);
    } else {
      const double value = 0.5 * (bounds.lower + bounds.upper);
      for (int player = 0; player < players_; ++player) {
        game_.search.push_back(player == mover ? value : rules_.total - value);
      }
    }
    if (TeachesNothing(bounds.lower, bounds.upper)) {
      Nothing(game_.played);
    } else {
      Interval(game_.played, bounds.lower, bounds.upper, mover);
    }
    const bool on_game_value =
        !outcome->completed || (!outcome->horizon && rules_.bounds_game_value);
    game_.exact.push_back(on_game_value && width <= kExactWidth * (vmax_ - vmin_));
  }

  // The positions below a searched one that the rules keep.
  void Below(const State& state, const AlphaBetaOutcome& outcome) {
    const int mover = state.CurrentPlayer();
    if (rules_.below == BelowLabels::kTable && outcome.labels) {
      const TableLabels& labels = *outcome.labels;
      PositionRows& rows = game_.below;
      rows.features.insert(rows.features.end(), labels.features.begin(), labels.features.end());
      rows.keys.insert(rows.keys.end(), labels.keys.begin(), labels.keys.end());
      for (size_t row = 0; row < labels.lower.size(); ++row) {
        Interval(rows, labels.lower[row], labels.upper[row], mover);
      }
    } else if (rules_.below == BelowLabels::kRootChildren && outcome.completed) {
      std::vector<RootChild> children = outcome.children;
      std::sort(children.begin(), children.end(),
                [](const RootChild& a, const RootChild& b) { return a.action < b.action; });
      for (const RootChild& child : children) {
        if (TeachesNothing(child.lower, child.upper)) continue;
        const std::unique_ptr<State> next = state.Child(child.action);
        if (next->IsTerminal()) continue;
        Append(game_.below, *next);
        Interval(game_.below, child.lower, child.upper, mover);
      }
    }
  }

  SelfPlayGame Finish(const State& terminal) {
    game_.returns = terminal.Returns();
    return std::move(game_);
  }

  RootBounds Bounds(const AlphaBetaOutcome& outcome) const {
    return outcome.completed ? RootBounds{outcome.lower, outcome.upper} : RootBounds{vmin_, vmax_};
  }

 private:
  bool TeachesNothing(double lower, double upper) const { return lower <= vmin_ && upper >= vmax_; }

  void Append(PositionRows& rows, const State& state) {
    const size_t at = rows.features.size();
    rows.features.resize(at + features_.size());
    features_.Write(state, rows.features.data() + at);
    rows.keys.push_back(KeyOf(state));
  }

  void Nothing(PositionRows& rows) const {
    rows.lower.insert(rows.lower.end(), players_, kNaN);
    rows.upper.insert(rows.upper.end(), players_, kNaN);
  }

  // Bounds on the mover's value as bounds on each player's (`player_interval`).
  void Interval(PositionRows& rows, double lower, double upper, int mover) const {
    for (int player = 0; player < players_; ++player) {
      rows.lower.push_back(player == mover ? lower : rules_.total - upper);
      rows.upper.push_back(player == mover ? upper : rules_.total - lower);
    }
  }

  Features& features_;
  const SelfPlayRules& rules_;
  const int players_;
  const double vmin_;
  const double vmax_;
  SelfPlayGame game_;
};

// A root child's rank under `policy` (`bots.base._RANKS`): the larger, the better.
std::pair<double, double> Rank(const RootChild& child, MovePolicy policy) {
  switch (policy) {
    case MovePolicy::kOptimistic:
      return {child.upper, child.lower};
    case MovePolicy::kAverage:
      return {0.5 * (child.lower + child.upper), child.lower};
    default:
      return {child.lower, child.upper};
  }
}

// The move the bot plays (`bots.base.choose_action`): the search's own without root children,
// else the best ranked, ties drawn by `choices.tie`.
Action Choose(const AlphaBetaOutcome& outcome, const SelfPlayRules& rules, int player,
              const SelfPlayChoices& choices) {
  if (!outcome.completed) return outcome.fallback;
  if (outcome.children.empty()) return outcome.order[0];
  std::pair<double, double> best = Rank(outcome.children[0], rules.policy);
  for (const RootChild& child : outcome.children) best = std::max(best, Rank(child, rules.policy));
  std::vector<Action> tied;
  for (const RootChild& child : outcome.children) {
    if (Rank(child, rules.policy) == best) tied.push_back(child.action);
  }
  if (tied.size() == 1) return tied[0];
  std::sort(tied.begin(), tied.end());
  return choices.tie(player, tied);
}

// The search's first depth at `state` (the Python `_search`): a deterministic game's last
// `endgame_plies` plies are searched at the final depth at once.
AlphaBetaConfig MoveConfig(const State& state, const SelfPlayRules& rules, bool has_chance) {
  AlphaBetaConfig config = rules.search;
  const int remaining = state.GetGame()->MaxGameLength() - state.MoveNumber();
  if (!has_chance && remaining > 0 &&
      remaining <= std::min(rules.endgame_plies, config.final_depth)) {
    config.first_depth = config.final_depth;
  }
  return config;
}

}  // namespace

SelfPlayGame PlaySelfPlayGame(const open_spiel::Game& game, Evaluator& evaluator,
                              const SelfPlayRules& rules, const SelfPlayChoices& choices,
                              Features& features, const std::function<Budget()>& budget) {
  const bool has_chance =
      game.GetType().chance_mode != open_spiel::GameType::ChanceMode::kDeterministic;
  GameRows rows(game, features, rules);
  std::unique_ptr<State> state = game.NewInitialState();
  int plies = 0;
  while (!state->IsTerminal()) {
    if (state->IsChanceNode()) {
      rows.Played(*state, nullptr);
      state->ApplyAction(choices.chance(state->ChanceOutcomes()));
      continue;
    }
    const std::vector<Action> legal = state->LegalActions();
    if (plies < rules.opening_moves) {
      rows.Played(*state, nullptr);
      state->ApplyAction(choices.opening(legal));
      ++plies;
      continue;
    }
    const AlphaBetaConfig config = MoveConfig(*state, rules, has_chance);
    Budget move_budget = budget();
    std::optional<LabelRequest> request;
    if (rules.below == BelowLabels::kTable)
      request.emplace(LabelRequest{features, rules.label_min_depth});
    const AlphaBetaOutcome outcome =
        AlphaBetaSearch(*state, evaluator, config, move_budget, request ? &*request : nullptr);
    const Action chosen = Choose(outcome, rules, state->CurrentPlayer(), choices);
    const std::optional<Action> explored = choices.explore(legal);
    rows.Played(*state, &outcome);
    rows.Below(*state, outcome);
    state->ApplyAction(explored.value_or(chosen));
    ++plies;
  }
  return rows.Finish(*state);
}

}  // namespace spiel_bounded
