// Bindings of the native BABMCTS tree (`spiel_bounded.search.babmcts.native_tree` drives it).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "babmcts.h"
#include "bindings.h"
#include "budget.h"
#include "open_spiel/spiel.h"

namespace py = pybind11;

namespace spiel_bounded {
namespace {

// The reference tree reads the clock after every node (`Budget(limits, clock_interval=1)`), so
// that its time limit is kept within one simulation's cost; so does this one. Ctrl-C / SIGTERM:
// Python's signal handlers run at every checkpoint, as in `MakeBudget`.
Budget MakeTreeBudget(std::optional<int64_t> max_nodes, std::optional<double> seconds,
                      std::optional<py::function> clock) {
  Budget::Clock read = SteadySeconds;
  if (clock.has_value()) {
    py::function function = *clock;
    read = [function]() { return function().cast<double>(); };
  }
  auto interrupt = []() {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  return Budget({max_nodes.value_or(-1), seconds.value_or(-1.0)}, read, interrupt,
                /*clock_interval=*/1);
}

const MctsNode& CheckedNode(const Babmcts& search, int64_t index) {
  if (index < 0 || index >= search.tree().size()) {
    throw py::index_error("no node " + std::to_string(index) + " in a tree of " +
                          std::to_string(search.tree().size()));
  }
  return search.tree().node(index);
}

}  // namespace

void BindMcts(py::module_& m) {
  py::class_<BabmctsOutcome>(m, "BabmctsOutcome")
      .def_readonly("stopped_by", &BabmctsOutcome::stopped_by)
      .def_readonly("simulations", &BabmctsOutcome::simulations)
      .def_readonly("evaluations", &BabmctsOutcome::evaluations)
      .def_readonly("cutoffs", &BabmctsOutcome::cutoffs)
      .def_readonly("depth", &BabmctsOutcome::depth)
      .def_readonly("nodes", &BabmctsOutcome::nodes)
      .def_readonly("tree_nodes", &BabmctsOutcome::tree_nodes)
      .def_readonly("reused_nodes", &BabmctsOutcome::reused_nodes)
      .def_readonly("seconds", &BabmctsOutcome::seconds);
  py::class_<Babmcts>(m, "Babmcts",
                      "A BABMCTS tree over OpenSpiel's C++ states; node 0 is the root.")
      .def(py::init([](const open_spiel::State& state, double vmin, double vmax, double epsilon,
                       double uct_c, bool prune, int64_t max_nodes, uint64_t seed) {
             if (state.IsTerminal()) throw py::value_error("babmcts needs a non-terminal state");
             if (max_nodes < 1) throw py::value_error("max_nodes must be >= 1");
             BabmctsConfig config{epsilon, uct_c, prune, max_nodes};
             auto search = std::make_unique<Babmcts>(vmin, vmax, config, seed);
             search->Reset(state);
             return search;
           }),
           py::arg("state"), py::kw_only(), py::arg("vmin"), py::arg("vmax"), py::arg("epsilon"),
           py::arg("uct_c"), py::arg("prune"), py::arg("max_nodes"), py::arg("seed"))
      .def(
          "reset",
          [](Babmcts& search, const open_spiel::State& state) {
            if (state.IsTerminal()) throw py::value_error("babmcts needs a non-terminal state");
            search.Reset(state);
          },
          py::arg("state"), "Drops the tree and holds only a root at `state`.")
      .def("move_root", &Babmcts::MoveRoot, py::arg("action"),
           "Moves the root to its child by `action` when that child is in the tree (True).")
      .def("reseed", &Babmcts::Reseed, py::arg("seed"),
           "Reseeds selection as `random.Random(seed)`.")
      .def(
          "search",
          [](Babmcts& search, Evaluator& evaluator, std::optional<py::function> prior,
             std::optional<int64_t> simulations, std::optional<int64_t> max_nodes,
             std::optional<double> seconds, std::optional<py::function> clock) {
            PriorFunction priors;
            if (prior.has_value()) {
              py::function function = *prior;
              priors = [function](const open_spiel::State& state) {
                // A copy that Python owns: the callback may keep it.
                return function(state.Clone())
                    .cast<std::vector<std::pair<open_spiel::Action, double>>>();
              };
            }
            search.MakeRoom();
            Budget budget = MakeTreeBudget(max_nodes, seconds, std::move(clock));
            return search.Search(evaluator, priors, simulations.value_or(-1), budget);
          },
          py::arg("evaluator"), py::kw_only(), py::arg("prior") = py::none(),
          py::arg("simulations") = py::none(), py::arg("max_nodes") = py::none(),
          py::arg("seconds") = py::none(), py::arg("clock") = py::none(),
          "Runs simulations until the root is proved, `simulations` more have run, or a limit "
          "stops them; a full kept tree is dropped first.")
      .def(
          "node",
          [](const Babmcts& search, int64_t index) {
            const MctsNode& node = CheckedNode(search, index);
            return py::make_tuple(node.player, node.n, node.w, node.lower, node.upper);
          },
          py::arg("index"), "`(player, n, w, lower, upper)` of a node (values: player 0's).")
      .def(
          "actions",
          [](const Babmcts& search, int64_t index) -> std::optional<std::vector<int64_t>> {
            const MctsNode& node = CheckedNode(search, index);
            if (node.count < 0) return std::nullopt;
            std::vector<int64_t> actions;
            for (int64_t e = node.first; e < node.first + node.count; ++e) {
              actions.push_back(search.tree().edge(e).action);
            }
            return actions;
          },
          py::arg("index"), "A node's actions in expansion order (None before expansion).")
      .def(
          "children",
          [](const Babmcts& search, int64_t index) {
            const MctsNode& node = CheckedNode(search, index);
            std::vector<std::pair<int64_t, int64_t>> children;
            for (int64_t e = node.first; e < node.first + std::max(node.count, 0); ++e) {
              const MctsEdge& edge = search.tree().edge(e);
              if (edge.child >= 0) children.emplace_back(edge.action, edge.child);
            }
            return children;
          },
          py::arg("index"), "`(action, node)` of a node's created children.")
      .def_property_readonly("size", [](const Babmcts& search) { return search.tree().size(); })
      .def_property_readonly("proved", &Babmcts::Proved)
      .def_property_readonly("simulations", &Babmcts::simulations)
      .def_property_readonly("evaluations", &Babmcts::evaluations)
      .def_property_readonly("fallbacks", &Babmcts::fallbacks);
}

}  // namespace spiel_bounded
