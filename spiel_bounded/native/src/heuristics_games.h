// The heuristics of amazons, of the games with chance and of the n-player games, and the seeded
// playouts: C++ twins of spiel_bounded/evaluators/heuristics_amazons.py, heuristics_chance.py,
// heuristics_nplayer.py and seeded_rollout.py. `MakeHeuristicEvaluator` (heuristics_board.cc) finds
// the heuristics here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "evaluator.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// backgammon and pig (any player count) as `BackgammonScorer` / `PigScorer`, chance nodes
// included; nullptr for another game. Throws std::invalid_argument where Python raises
// ValueError (a misprinted initial state, pig with diceoutcomes < 2).
std::unique_ptr<Evaluator> MakeChanceHeuristic(const open_spiel::Game& game);

// chinese_checkers, maedn and yacht (5 six-sided dice only, `YachtScorer.supports`) as
// `ChineseCheckersScorer` / `MaednScorer` / `YachtScorer`; nullptr for another game.
std::unique_ptr<Evaluator> MakeNPlayerHeuristic(const open_spiel::Game& game);

// amazons (boards of at most 128 cells: all OpenSpiel makes) as `AmazonsScorer`
// (heuristics_amazons.cc); nullptr for another game.
std::unique_ptr<Evaluator> MakeAmazonsHeuristic(const open_spiel::Game& game);

// `SeededRolloutEvaluator`: the mean returns of `rollouts` playouts of OpenSpiel's uniform
// random bots, seeded by the CRC-32 of the state's text, by the same OpenSpiel functions
// Python calls (`MakeUniformRandomBot`, `EvaluateBots`), so every playout is the same.
std::unique_ptr<Evaluator> MakeSeededRolloutEvaluator(int rollouts);

// Helpers shared by the text heuristics (heuristics_text.cc).

// `text` in quotes with newlines and unprintable bytes escaped, as Python's repr() shows it.
std::string PyRepr(const std::string& text);

// `game.ToString()` without an empty "()", as `spiel_bounded.games.game_description`.
std::string GameDescription(const open_spiel::Game& game);

// Python's `str.split()`: the runs of characters between whitespace.
std::vector<std::string> SplitWhitespace(const std::string& text);

// Python's `int(text)` for the plain decimal integers OpenSpiel prints; throws
// std::invalid_argument naming `what` otherwise.
long long ParseInt(const std::string& text, const char* what);

// `sequence[index]` as Python indexes a list of `size` items (a negative index counts from the
// end); throws std::out_of_range where Python raises IndexError.
int PyIndex(long long index, int size);

}  // namespace spiel_bounded
