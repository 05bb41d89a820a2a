// The bounded alpha-beta engine over OpenSpiel's C++ states: the native twin of
// `spiel_bounded.search.alphabeta` (bounded_ab, bounded_star1 / bounded_star2, paranoid). The
// rules (windows, epsilon, Star-1 / Star-2 at chance nodes) are stated and proved in
// docs/algorithms.md; this engine follows the Python one (`search/alphabeta/engine.py`) step
// for step, so that at a fixed depth it visits
// the same nodes and returns the same bounds, moves and principal variation
// (`tests/test_native_alphabeta.py`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "budget.h"
#include "evaluator.h"
#include "keys.h"
#include "open_spiel/spiel.h"
#include "table_walk.h"

namespace spiel_bounded {

// What the Python `_search` decided: the settings, and the depths to iterate over.
struct AlphaBetaConfig {
  double epsilon = 0.0;
  bool transpositions = true;
  bool move_ordering = true;
  // NATIVE_CAPACITY of search/alphabeta/settings.py.
  int64_t tt_capacity = 1'500'000;
  bool carry = false;    // chance_epsilon == "carry"
  bool probing = false;  // Star-2
  bool undo = false;     // children by ApplyAction / UndoAction (UNDO_EXACT_GAMES)
  KeyKind key_kind = KeyKind::kString;
  int first_depth = 1;
  int final_depth = 1;
};

struct RootChild {
  int64_t action;
  double lower;
  double upper;
};

// The last completed iteration, the counters, and why the search ended.
struct AlphaBetaOutcome {
  bool completed = false;  // an iteration completed (else `fallback` is the move to play)
  int depth = 0;
  double lower = 0.0;
  double upper = 0.0;
  bool horizon = true;
  std::vector<RootChild> children;  // in search order
  std::vector<int64_t> order;       // best first
  std::vector<int64_t> pv;
  int64_t fallback = -1;
  std::string stopped_by = "depth";
  int64_t nodes = 0;
  int64_t evaluations = 0;
  int64_t cutoffs = 0;
  int64_t tt_hits = 0;
  int64_t tt_entries = 0;
  double seconds = 0.0;
  std::optional<TableLabels> labels;  // asked for: the positions the table bounded
};

// Asks a search for the positions its table bounded (`WalkTable`), written as `features`,
// those stored with at least `min_depth` plies left.
struct LabelRequest {
  Features& features;
  int min_depth = 1;
};

// Searches `root` (a decision state) for its player to move; see the Python `_search`. With
// `labels` (and a table), the outcome also carries the table's labels, however the search ended.
AlphaBetaOutcome AlphaBetaSearch(const open_spiel::State& root, Evaluator& evaluator,
                                 const AlphaBetaConfig& config, Budget& budget,
                                 const LabelRequest* labels = nullptr);

}  // namespace spiel_bounded
