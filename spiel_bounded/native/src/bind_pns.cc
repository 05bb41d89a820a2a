// Bindings of the proof-number family (df-pn, bounded multi-outcome PNS) and of Rivest's min/max
// approximation: the best-first searches that keep no depth iteration.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "budget.h"
#include "evaluator.h"
#include "keys.h"
#include "open_spiel/spiel.h"
#include "pns.h"
#include "rivest.h"

namespace py = pybind11;

namespace spiel_bounded {

void BindPns(py::module_& m) {
  py::class_<PnsOutcome>(m, "PnsOutcome")
      .def_readonly("expanded", &PnsOutcome::expanded)
      .def_readonly("actions", &PnsOutcome::actions)
      .def_readonly("lower", &PnsOutcome::lower)
      .def_readonly("upper", &PnsOutcome::upper)
      .def_readonly("pn", &PnsOutcome::pn)
      .def_readonly("dn", &PnsOutcome::dn)
      .def_readonly("root_lower", &PnsOutcome::root_lower)
      .def_readonly("root_upper", &PnsOutcome::root_upper)
      .def_readonly("stopped_by", &PnsOutcome::stopped_by)
      .def_readonly("nodes", &PnsOutcome::nodes)
      .def_readonly("tt_hits", &PnsOutcome::tt_hits)
      .def_readonly("depth", &PnsOutcome::depth)
      .def_readonly("collections", &PnsOutcome::collections)
      .def_readonly("tt_entries", &PnsOutcome::tt_entries)
      .def_readonly("seconds", &PnsOutcome::seconds);
  m.attr("PROOF_INFINITY") = kProofInfinity;
  m.def(
      "pns",
      [](const open_spiel::State& state, double floor, double ceiling, std::optional<double> goal,
         double epsilon, std::vector<double> outcomes, std::optional<py::function> bad_terminal,
         bool transpositions, const std::string& key_kind, int64_t tt_capacity,
         std::optional<int64_t> max_nodes, std::optional<double> seconds,
         std::optional<py::function> clock) {
        if (tt_capacity < 1) throw py::value_error("tt_capacity must be >= 1");
        if (!(floor < ceiling)) throw py::value_error("floor must be below ceiling");
        if (state.IsTerminal() || state.IsChanceNode() || state.NumPlayers() != 2) {
          throw py::value_error("pns searches a decision state of a two-player game");
        }
        PnsConfig config;
        config.floor = floor;
        config.ceiling = ceiling;
        config.bounded = !goal.has_value();
        config.goal = goal.value_or(0.0);
        config.epsilon = epsilon;
        if (config.bounded && outcomes.empty()) {
          throw py::value_error("bounded_pns needs the game's terminal values");
        }
        if (!outcomes.empty() && !bad_terminal.has_value()) {
          throw py::value_error("terminal values to check need a bad_terminal callback");
        }
        config.outcomes = std::move(outcomes);
        if (bad_terminal.has_value()) {
          py::function raise = *bad_terminal;
          config.bad_terminal = [raise](double value, const open_spiel::State& terminal) {
            raise(value, terminal.ToString());
            throw py::value_error("bad_terminal returned instead of raising");
          };
        }
        config.transpositions = transpositions;
        config.key_kind = ParseKeyKind(key_kind);
        config.tt_capacity = tt_capacity;
        Budget budget = MakeBudget(max_nodes, seconds, std::move(clock));
        return PnsSearch(state, config, budget);
      },
      py::arg("state"), py::kw_only(), py::arg("floor"), py::arg("ceiling"), py::arg("goal"),
      py::arg("epsilon"), py::arg("outcomes"), py::arg("bad_terminal"), py::arg("transpositions"),
      py::arg("key_kind"), py::arg("tt_capacity"), py::arg("max_nodes") = py::none(),
      py::arg("seconds") = py::none(), py::arg("clock") = py::none(),
      "df-pn on `value >= goal` (pns), or with goal None bounded multi-outcome PNS on the "
      "sorted terminal values `outcomes` (spiel_bounded.search.pns decides the arguments).");

  py::class_<RivestOutcome>(m, "RivestOutcome")
      .def_readonly("expanded", &RivestOutcome::expanded)
      .def_readonly("actions", &RivestOutcome::actions)
      .def_readonly("values", &RivestOutcome::values)
      .def_readonly("best", &RivestOutcome::best)
      .def_readonly("pv", &RivestOutcome::pv)
      .def_readonly("solved", &RivestOutcome::solved)
      .def_readonly("stopped_by", &RivestOutcome::stopped_by)
      .def_readonly("nodes", &RivestOutcome::nodes)
      .def_readonly("evaluations", &RivestOutcome::evaluations)
      .def_readonly("depth", &RivestOutcome::depth)
      .def_readonly("tree_size", &RivestOutcome::tree_size)
      .def_readonly("seconds", &RivestOutcome::seconds);
  m.def(
      "rivest",
      [](const open_spiel::State& state, Evaluator& evaluator, bool generalized, double p,
         int64_t max_nodes, std::optional<int> max_depth, double min_utility, double max_utility,
         double free_seconds_per_node, std::optional<int64_t> max_nodes_budget,
         std::optional<double> seconds, std::optional<py::function> clock) {
        if (max_nodes < 1) throw py::value_error("max_nodes must be >= 1");
        if (max_nodes >= (int64_t{1} << 31)) throw py::value_error("max_nodes must be < 2^31");
        if (!(p > 1.0)) throw py::value_error("p must be > 1");
        if (!(min_utility < max_utility)) {
          throw py::value_error("min_utility must be below max_utility");
        }
        if (state.IsTerminal() || state.IsChanceNode() || state.NumPlayers() != 2) {
          throw py::value_error("rivest searches a decision state of a two-player game");
        }
        RivestConfig config;
        config.generalized = generalized;
        config.p = p;
        config.max_nodes = max_nodes;
        config.max_depth = max_depth.value_or(-1);
        config.min_utility = min_utility;
        config.max_utility = max_utility;
        config.free_seconds_per_node = free_seconds_per_node;
        Budget budget = MakeBudget(max_nodes_budget, seconds, std::move(clock));
        return RivestSearch(state, evaluator, config, budget, seconds.value_or(-1.0));
      },
      py::arg("state"), py::arg("evaluator"), py::kw_only(), py::arg("generalized"), py::arg("p"),
      py::arg("max_nodes"), py::arg("max_depth"), py::arg("min_utility"), py::arg("max_utility"),
      py::arg("free_seconds_per_node"), py::arg("max_nodes_budget") = py::none(),
      py::arg("seconds") = py::none(), py::arg("clock") = py::none(),
      "Min/max approximation from a decision state (spiel_bounded.search.rivest decides the "
      "arguments); `max_nodes` caps the tree, `max_nodes_budget` the children generated.");
}

}  // namespace spiel_bounded
