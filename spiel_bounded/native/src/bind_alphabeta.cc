// Bindings of the alpha-beta family and of the budget every native search runs on.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>

#include "alphabeta.h"
#include "bindings.h"
#include "budget.h"
#include "features.h"
#include "open_spiel/spiel.h"

namespace py = pybind11;

namespace spiel_bounded {

Budget MakeBudget(std::optional<int64_t> max_nodes, std::optional<double> seconds,
                  std::optional<py::function> clock) {
  Budget::Clock read = SteadySeconds;
  if (clock.has_value()) {
    py::function function = *clock;
    read = [function]() { return function().cast<double>(); };
  }
  auto interrupt = []() {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  return Budget({max_nodes.value_or(-1), seconds.value_or(-1.0)}, read, interrupt);
}

namespace {

template <typename T>
py::array_t<T> Array(const std::vector<T>& values) {
  return py::array_t<T>(static_cast<py::ssize_t>(values.size()), values.data());
}

}  // namespace

void BindAlphaBeta(py::module_& m) {
  py::class_<TableLabels>(m, "TableLabels")
      .def_property_readonly(
          "features",
          [](const TableLabels& labels) {
            const py::ssize_t rows =
                static_cast<py::ssize_t>(labels.size ? labels.features.size() / labels.size : 0);
            return py::array_t<float>({rows, py::ssize_t{labels.size}}, labels.features.data());
          })
      .def_readonly("keys", &TableLabels::keys)
      .def_property_readonly("lower", [](const TableLabels& labels) { return Array(labels.lower); })
      .def_property_readonly("upper", [](const TableLabels& labels) { return Array(labels.upper); })
      .def_property_readonly("depth", [](const TableLabels& labels) { return Array(labels.depth); })
      .def_property_readonly("proven", [](const TableLabels& labels) {
        py::array_t<bool> out(static_cast<py::ssize_t>(labels.proven.size()));
        std::copy(labels.proven.begin(), labels.proven.end(), out.mutable_data());
        return out;
      });
  py::class_<RootChild>(m, "RootChild")
      .def_readonly("action", &RootChild::action)
      .def_readonly("lower", &RootChild::lower)
      .def_readonly("upper", &RootChild::upper);
  py::class_<AlphaBetaOutcome>(m, "AlphaBetaOutcome")
      .def_readonly("completed", &AlphaBetaOutcome::completed)
      .def_readonly("depth", &AlphaBetaOutcome::depth)
      .def_readonly("lower", &AlphaBetaOutcome::lower)
      .def_readonly("upper", &AlphaBetaOutcome::upper)
      .def_readonly("horizon", &AlphaBetaOutcome::horizon)
      .def_readonly("children", &AlphaBetaOutcome::children)
      .def_readonly("order", &AlphaBetaOutcome::order)
      .def_readonly("pv", &AlphaBetaOutcome::pv)
      .def_readonly("fallback", &AlphaBetaOutcome::fallback)
      .def_readonly("stopped_by", &AlphaBetaOutcome::stopped_by)
      .def_readonly("nodes", &AlphaBetaOutcome::nodes)
      .def_readonly("evaluations", &AlphaBetaOutcome::evaluations)
      .def_readonly("cutoffs", &AlphaBetaOutcome::cutoffs)
      .def_readonly("tt_hits", &AlphaBetaOutcome::tt_hits)
      .def_readonly("tt_entries", &AlphaBetaOutcome::tt_entries)
      .def_readonly("seconds", &AlphaBetaOutcome::seconds)
      .def_readonly("labels", &AlphaBetaOutcome::labels);
  m.def(
      "alpha_beta",
      [](const open_spiel::State& state, Evaluator& evaluator, double epsilon, bool transpositions,
         bool move_ordering, int64_t tt_capacity, bool carry, bool probing, bool undo,
         const std::string& key_kind, int first_depth, int final_depth,
         std::optional<int64_t> max_nodes, std::optional<double> seconds,
         std::optional<py::function> clock, std::optional<std::string> label_chance_view,
         const std::string& label_lifted_view, int label_min_depth) {
        AlphaBetaConfig config;
        config.epsilon = epsilon;
        config.transpositions = transpositions;
        config.move_ordering = move_ordering;
        config.tt_capacity = tt_capacity;
        config.carry = carry;
        config.probing = probing;
        config.undo = undo;
        config.key_kind = ParseKeyKind(key_kind);
        config.first_depth = first_depth;
        config.final_depth = final_depth;
        Budget budget = MakeBudget(max_nodes, seconds, std::move(clock));
        if (!label_chance_view) return AlphaBetaSearch(state, evaluator, config, budget);
        Features features(*state.GetGame(), {*label_chance_view, label_lifted_view});
        const LabelRequest request{features, label_min_depth};
        return AlphaBetaSearch(state, evaluator, config, budget, &request);
      },
      py::arg("state"), py::arg("evaluator"), py::kw_only(), py::arg("epsilon"),
      py::arg("transpositions"), py::arg("move_ordering"), py::arg("tt_capacity"), py::arg("carry"),
      py::arg("probing"), py::arg("undo"), py::arg("key_kind"), py::arg("first_depth"),
      py::arg("final_depth"), py::arg("max_nodes") = py::none(), py::arg("seconds") = py::none(),
      py::arg("clock") = py::none(), py::arg("label_chance_view") = py::none(),
      py::arg("label_lifted_view") = "restored", py::arg("label_min_depth") = 1,
      "Bounded alpha-beta / Star-1 / Star-2 / paranoid from a decision state "
      "(spiel_bounded.search.alphabeta decides the arguments); with label_chance_view, the "
      "outcome's labels are the positions its table bounded (spiel_bounded.search.table_walk).");
}

}  // namespace spiel_bounded
