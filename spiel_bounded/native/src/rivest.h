// Best-first search by min/max approximation (Rivest 1987) over OpenSpiel's C++ states: the
// native twin of `spiel_bounded.search.rivest`. The Python module's docstring states the rules
// (mapped values, generalized means, edge weights, penalties, solved subtrees); this engine
// follows the Python one step for step, so that after the same number of expansions it holds
// the same tree and returns the same move, root children and principal variation
// (`tests/test_native_pns_rivest.py`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "budget.h"
#include "evaluator.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// What the Python `rivest` decided.
struct RivestConfig {
  bool generalized = false;  // p-mean values (else minimax values, Rivest's reverse weights)
  double p = 10.0;
  int64_t max_nodes = 250'000;  // the tree never holds more nodes
  int max_depth = -1;           // < 0: no depth limit
  double min_utility = -1.0;
  double max_utility = 1.0;
  // With a time limit: a search stops once the time left would not free its tree at this cost.
  double free_seconds_per_node = 0.0;
};

// The root's children as utilities of the root player, the move, and the counters.
struct RivestOutcome {
  bool expanded = false;  // the root was expanded (else the vectors are empty)
  std::vector<int64_t> actions;
  std::vector<double> values;  // backed-up values, in the game's utility units
  int64_t best = -1;           // index of the move played
  std::vector<int64_t> pv;
  bool solved = false;  // the root's value is exact
  std::string stopped_by = "depth";
  int64_t nodes = 0;
  int64_t evaluations = 0;
  int64_t depth = 0;  // the tree's depth
  int64_t tree_size = 0;
  double seconds = 0.0;
};

// Searches `root` (a decision state of a two-player zero-sum game) for its player to move;
// `seconds` is the time limit `budget` holds (< 0: none), read for freeing the tree in time.
RivestOutcome RivestSearch(const open_spiel::State& root, Evaluator& evaluator,
                           const RivestConfig& config, Budget& budget, double seconds);

}  // namespace spiel_bounded
