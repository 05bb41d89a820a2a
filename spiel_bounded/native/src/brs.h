// Best-reply search BRS+ over OpenSpiel's C++ states: the native twin of
// `spiel_bounded.search.brs`, whose docstring states the rules (segments between two root
// turns, the searched opponent, the preferred moves and their memo). This engine follows the
// Python one step for step: the same nodes, values and move at a fixed depth
// (`tests/test_native_maxn.py`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "budget.h"
#include "evaluator.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

struct BrsConfig {
  double min_utility = 0.0;  // the low end of a failed-low root child's interval
  bool undo = false;         // children by ApplyAction / UndoAction (UNDO_EXACT_GAMES)
  int final_depth = 1;
};

struct BrsChild {
  int64_t action;
  double lower;
  double upper;
};

// The last completed iteration, the counters, and why the search ended.
struct BrsOutcome {
  bool completed = false;
  int depth = 0;
  int64_t action = -1;
  double value = 0.0;  // the root player's
  bool horizon = true;
  std::vector<BrsChild> children;  // in legal order
  std::string stopped_by = "depth";
  int64_t nodes = 0;
  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  double seconds = 0.0;
};

// Searches `root` (a decision state) for its player to move; see the Python `brs_plus`.
BrsOutcome BrsSearch(const open_spiel::State& root, Evaluator& evaluator, const BrsConfig& config,
                     Budget& budget);

}  // namespace spiel_bounded
