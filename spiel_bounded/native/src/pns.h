// Depth-first proof-number search (df-pn) with proven bounds, and its bounded multi-outcome form,
// over OpenSpiel's C++ states: the native twin of `spiel_bounded.search.pns`. The Python module's
// docstring states the rules (numbers tied to bounds, thresholds, questions, the table and its
// collection); this engine follows the Python one step for step, so that at a node limit it visits
// the same nodes and ends with the same root children, bounds and numbers
// (`tests/test_native_pns_rivest.py`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "budget.h"
#include "keys.h"
#include "open_spiel/spiel.h"

namespace spiel_bounded {

// The infinite proof or disproof number (the Python `INF`).
constexpr int64_t kProofInfinity = int64_t{1} << 60;

// What the Python `pns` / `bounded_pns` decided.
struct PnsConfig {
  double floor = -1.0;  // the bounds of an unexpanded node
  double ceiling = 1.0;
  bool bounded = false;  // bounded_pns: questions on `outcomes` until the root is epsilon wide
  double goal = 0.0;     // pns: the one question "value >= goal"
  double epsilon = 0.0;  // bounded_pns
  std::vector<double> outcomes;  // sorted terminal values (empty: not checked; pns)
  bool transpositions = true;
  KeyKind key_kind = KeyKind::kString;
  int64_t tt_capacity = 500'000;
  // Called with a terminal value outside `outcomes` and the terminal state; must throw.
  std::function<void(double, const open_spiel::State&)> bad_terminal;
};

// The root's children as the search left them, the counters, and why it ended.
struct PnsOutcome {
  bool expanded = false;  // the root was expanded (else the vectors are empty)
  std::vector<int64_t> actions;
  std::vector<double> lower;
  std::vector<double> upper;
  std::vector<int64_t> pn;
  std::vector<int64_t> dn;
  double root_lower = 0.0;  // bounded_pns: the interval its questions proved
  double root_upper = 0.0;
  std::string stopped_by = "solved";
  int64_t nodes = 0;
  int64_t tt_hits = 0;
  int64_t depth = 0;  // the deepest ply expanded
  int64_t collections = 0;
  int64_t tt_entries = 0;
  double seconds = 0.0;
};

// Searches `root` (a decision state) for its player to move; see the Python `pns` and
// `bounded_pns`.
PnsOutcome PnsSearch(const open_spiel::State& root, const PnsConfig& config, Budget& budget);

}  // namespace spiel_bounded
