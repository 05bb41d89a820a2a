// One self-play game of the alpha-beta family played whole in C++: the native twin of
// `spiel_bounded.training.selfplay.play_selfplay_game` (tests/test_native_selfplay.py plays both
// and compares every row). The searches, the move choice and the rows stay in C++; the game's
// random draws are the caller's (`SelfPlayChoices`), so both loops play the same games.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "alphabeta.h"
#include "budget.h"
#include "evaluator.h"
#include "features.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// How the bot picks its move from the root children's bounds (`bots.base.choose_action`).
enum class MovePolicy { kPessimistic, kOptimistic, kAverage };

// Which positions below the searched ones a game keeps, with their bounds.
enum class BelowLabels { kNone, kRootChildren, kTable };

// What the Python `play_selfplay_game` and the bot's `_search` decide once for a whole game.
struct SelfPlayRules {
  // The search of a move; `first_depth` is that of a move far from the end of the game.
  AlphaBetaConfig search;
  BudgetLimits limits;  // of each move's search
  bool iterative_deepening = true;
  int endgame_plies = 0;  // a deterministic game's last plies are searched at the final depth
  MovePolicy policy = MovePolicy::kPessimistic;
  int opening_moves = 0;          // decision plies played at random, without a search
  bool bounds_game_value = true;  // a solved search bounds the game value (two-player zero-sum)
  double total = 0.0;             // the game's constant sum: the other player's value is it minus
  BelowLabels below = BelowLabels::kNone;
  int label_min_depth = 1;  // BelowLabels::kTable: entries with fewer plies left are left out
};

// The game's random draws, made by the caller in the order the Python loop makes them.
struct SelfPlayChoices {
  // A uniformly random move of `legal` (an opening ply).
  std::function<open_spiel::Action(const std::vector<open_spiel::Action>&)> opening;
  // After the search chose: a uniformly random move of `legal` with probability epsilon.
  std::function<std::optional<open_spiel::Action>(const std::vector<open_spiel::Action>&)> explore;
  // An outcome of a chance node, drawn by its probabilities.
  std::function<open_spiel::Action(const open_spiel::ActionsAndProbs&)> chance;
  // One of `tied` (sorted), the moves `player`'s policy ranks equal.
  std::function<open_spiel::Action(int, const std::vector<open_spiel::Action>&)> tie;
};

// Rows of positions: network inputs, keys ("mover|str(state)") and per-player bounds.
struct PositionRows {
  std::vector<float> features;  // [rows][size]
  std::vector<std::string> keys;
  std::vector<double> lower;  // [rows][players], NaN where there are none
  std::vector<double> upper;
};

// One game's rows, as `GamePositions`: every position played (chance nodes included), then the
// positions below the searched ones that `SelfPlayRules::below` keeps.
struct SelfPlayGame {
  int size = 0;
  int players = 0;
  PositionRows played;
  std::vector<double> search;  // [rows][players] the searched value, NaN where there is none
  std::vector<uint8_t> exact;  // the search proved the position's game value
  std::vector<double> returns;
  PositionRows below;
};

// Plays a game from the initial state, every decision searched by `AlphaBetaSearch` on a fresh
// budget from `budget()`, with `features` writing the rows.
SelfPlayGame PlaySelfPlayGame(const open_spiel::Game& game, Evaluator& evaluator,
                              const SelfPlayRules& rules, const SelfPlayChoices& choices,
                              Features& features, const std::function<Budget()>& budget);

}  // namespace spiel_bounded
