// Max^n with shallow, last-branch and speculative pruning, and directed offensive, over
// OpenSpiel's C++ states: the native twin of `spiel_bounded.search.maxn`. The Python module's
// docstring states the rules (ties, contexts, when each pruning applies, re-searches); this
// engine follows the Python one step for step, so that at a fixed depth it visits the same
// nodes and returns the same move, vector and root children (`tests/test_native_maxn.py`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "budget.h"
#include "evaluator.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// What the Python `_search` decided.
struct MaxnConfig {
  bool pruning = false;  // shallow pruning at least (needs `lower` and `max_sum`)
  bool last_branch = false;
  bool speculative = false;
  double lower = 0.0;        // every player's value is >= lower (pruning only)
  double max_sum = 0.0;      // the players' values sum to at most max_sum (pruning only)
  double min_utility = 0.0;  // the low end of a pruned root child's interval without pruning
  bool ordering = false;     // the mover's best child first by the evaluator
  bool undo = false;         // children by ApplyAction / UndoAction (UNDO_EXACT_GAMES)
  int target = -1;           // directed offensive: the root player minimises this player's value
  int final_depth = 1;
};

// A root move's value for the root player: an interval when the move was pruned.
struct MaxnChild {
  int64_t action;
  double lower;
  double upper;
};

// The last completed iteration, the counters, and why the search ended.
struct MaxnOutcome {
  bool completed = false;  // an iteration completed
  int depth = 0;
  int64_t action = -1;
  std::vector<double> values;  // the chosen move's vector
  bool horizon = true;
  std::vector<MaxnChild> children;  // in legal order
  std::string stopped_by = "depth";
  int64_t nodes = 0;
  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  int64_t researches = 0;
  int64_t research_nodes = 0;
  double seconds = 0.0;
};

// Searches `root` (a decision state) with iterative deepening; see the Python `_search`.
MaxnOutcome MaxnSearch(const open_spiel::State& root, Evaluator& evaluator,
                       const MaxnConfig& config, Budget& budget);

}  // namespace spiel_bounded
