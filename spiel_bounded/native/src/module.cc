// The Python module `spiel_bounded.native._engine`: bindings only; each engine has its own file.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "alphabeta.h"
#include "budget.h"
#include "evaluator.h"
#include "open_spiel/spiel.h"
#include "state_text.h"

namespace py = pybind11;
using spiel_bounded::Evaluator;

namespace {

void BindEvaluators(py::module_& m) {
  py::class_<Evaluator, std::shared_ptr<Evaluator>>(
      m, "Evaluator", "A native leaf evaluator: `value(state, player)` in the game's units.")
      .def(
          "value",
          [](Evaluator& evaluator, const open_spiel::State& state, int player) {
            evaluator.StartSearch(state);
            return evaluator.Value(state, player);
          },
          py::arg("state"), py::arg("player"))
      .def_property_readonly("name", &Evaluator::name);
  m.def(
      "constant_evaluator",
      [](std::vector<double> values) -> std::shared_ptr<Evaluator> {
        return spiel_bounded::MakeConstantEvaluator(std::move(values));
      },
      py::arg("values"), "Values every state at `values[player]` (the zero evaluator).");
  m.def(
      "rollout_evaluator",
      [](int playouts, uint64_t seed, double low, double high) -> std::shared_ptr<Evaluator> {
        if (playouts < 1) throw py::value_error("playouts must be >= 1");
        return spiel_bounded::MakeRolloutEvaluator(playouts, seed, low, high);
      },
      py::arg("playouts"), py::arg("seed"), py::arg("low"), py::arg("high"),
      "Mean return of seeded uniformly random playouts, clamped to [low, high].");
  m.def(
      "heuristic_evaluator",
      [](const open_spiel::Game& game) -> std::shared_ptr<Evaluator> {
        return spiel_bounded::MakeHeuristicEvaluator(game);
      },
      py::arg("game"), "The game's hand-written heuristic in C++, or None.");
  m.def(
      "callback_evaluator",
      [](py::function value, std::string name) -> std::shared_ptr<Evaluator> {
        // The callback gets a copy that Python owns: it may keep it past the search.
        auto call = [value](const open_spiel::State& state, int player) {
          return value(state.Clone(), player).cast<double>();
        };
        return spiel_bounded::MakeCallbackEvaluator(call, std::move(name));
      },
      py::arg("value"), py::arg("name"),
      "Calls `value(state, player) -> float` back (a Python evaluator).");
}

// A budget on `clock` (None: a steady clock) that stops for Ctrl-C / SIGTERM: Python's signal
// handlers run at every checkpoint, and an exception they raise ends the search.
spiel_bounded::Budget MakeBudget(std::optional<int64_t> max_nodes, std::optional<double> seconds,
                                 std::optional<py::function> clock) {
  spiel_bounded::Budget::Clock read = spiel_bounded::SteadySeconds;
  if (clock.has_value()) {
    py::function function = *clock;
    read = [function]() { return function().cast<double>(); };
  }
  auto interrupt = []() {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  return spiel_bounded::Budget({max_nodes.value_or(-1), seconds.value_or(-1.0)}, read, interrupt);
}

void BindAlphaBeta(py::module_& m) {
  using spiel_bounded::AlphaBetaOutcome;
  using spiel_bounded::RootChild;
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
      .def_readonly("seconds", &AlphaBetaOutcome::seconds);
  m.def(
      "alpha_beta",
      [](const open_spiel::State& state, Evaluator& evaluator, double epsilon, bool transpositions,
         bool move_ordering, int64_t tt_capacity, bool carry, bool probing, bool undo,
         const std::string& key_kind, int first_depth, int final_depth,
         std::optional<int64_t> max_nodes, std::optional<double> seconds,
         std::optional<py::function> clock) {
        spiel_bounded::AlphaBetaConfig config;
        config.epsilon = epsilon;
        config.transpositions = transpositions;
        config.move_ordering = move_ordering;
        config.tt_capacity = tt_capacity;
        config.carry = carry;
        config.probing = probing;
        config.undo = undo;
        config.key_kind = spiel_bounded::ParseKeyKind(key_kind);
        config.first_depth = first_depth;
        config.final_depth = final_depth;
        spiel_bounded::Budget budget = MakeBudget(max_nodes, seconds, std::move(clock));
        return spiel_bounded::AlphaBetaSearch(state, evaluator, config, budget);
      },
      py::arg("state"), py::arg("evaluator"), py::kw_only(), py::arg("epsilon"),
      py::arg("transpositions"), py::arg("move_ordering"), py::arg("tt_capacity"), py::arg("carry"),
      py::arg("probing"), py::arg("undo"), py::arg("key_kind"), py::arg("first_depth"),
      py::arg("final_depth"), py::arg("max_nodes") = py::none(), py::arg("seconds") = py::none(),
      py::arg("clock") = py::none(),
      "Bounded alpha-beta / Star-1 / Star-2 / paranoid from a decision state "
      "(spiel_bounded.search.alphabeta decides the arguments).");
}

}  // namespace

void BindStateText(py::module_& m) {
  m.def(
      "state_text",
      [](const open_spiel::State& root, const open_spiel::State& state) {
        const spiel_bounded::StateText text(root);
        std::string out;
        text.Write(state, out);
        return py::make_tuple(out, text.from_history());
      },
      py::arg("root"), py::arg("state"),
      "(text of `state` as the searches from `root` read it, whether it came from the history).");
}

PYBIND11_MODULE(_engine, m) {
  m.doc() = "The native search engines of spiel_bounded over OpenSpiel's C++ states.";
  BindEvaluators(m);
  BindAlphaBeta(m);
  BindStateText(m);
}
