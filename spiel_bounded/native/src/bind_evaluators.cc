// Bindings of the evaluators and of the state text the searches read.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "evaluator.h"
#include "open_spiel/spiel.h"
#include "state_text.h"

namespace py = pybind11;

namespace spiel_bounded {

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
      .def(
          "values",
          [](Evaluator& evaluator, const open_spiel::State& state) {
            evaluator.StartSearch(state);
            std::vector<double> out;
            evaluator.Values(state, out);
            return out;
          },
          py::arg("state"), "Every player's value of `state`.")
      .def_property_readonly("name", &Evaluator::name);
  m.def(
      "constant_evaluator",
      [](std::vector<double> values) -> std::shared_ptr<Evaluator> {
        return MakeConstantEvaluator(std::move(values));
      },
      py::arg("values"), "Values every state at `values[player]` (the zero evaluator).");
  m.def(
      "rollout_evaluator",
      [](int playouts, uint64_t seed, double low, double high) -> std::shared_ptr<Evaluator> {
        if (playouts < 1) throw py::value_error("playouts must be >= 1");
        return MakeRolloutEvaluator(playouts, seed, low, high);
      },
      py::arg("playouts"), py::arg("seed"), py::arg("low"), py::arg("high"),
      "Mean return of seeded uniformly random playouts, clamped to [low, high].");
  m.def(
      "heuristic_evaluator",
      [](const open_spiel::Game& game) -> std::shared_ptr<Evaluator> {
        return MakeHeuristicEvaluator(game);
      },
      py::arg("game"), "The game's hand-written heuristic in C++, or None.");
  m.def(
      "callback_evaluator",
      [](py::function value, std::string name) -> std::shared_ptr<Evaluator> {
        // The callback gets a copy that Python owns: it may keep it past the search.
        auto call = [value](const open_spiel::State& state, int player) {
          return value(state.Clone(), player).cast<double>();
        };
        return MakeCallbackEvaluator(call, std::move(name));
      },
      py::arg("value"), py::arg("name"),
      "Calls `value(state, player) -> float` back (a Python evaluator).");

  m.def(
      "child_leaves",
      [](Evaluator& evaluator, const open_spiel::State& state, int player, bool start_search,
         bool undo) -> std::optional<std::vector<std::pair<double, bool>>> {
        if (start_search) evaluator.StartSearch(state);
        const std::unique_ptr<open_spiel::State> parent = state.Clone();
        if (!evaluator.BeginChildren(*parent, player, undo)) return std::nullopt;
        std::vector<std::pair<double, bool>> leaves;
        for (const open_spiel::Action move : state.LegalActions()) {
          const LeafValue leaf = evaluator.ChildValue(move);
          leaves.emplace_back(leaf.value, leaf.terminal);
        }
        if (parent->ToString() != state.ToString() || parent->History() != state.History()) {
          throw std::logic_error("child_leaves: the evaluator left the parent changed");
        }
        return leaves;
      },
      py::arg("evaluator"), py::arg("state"), py::arg("player"), py::arg("start_search") = true,
      py::arg("undo") = false,
      "(value for `player`, terminal) of every child of `state` in legal-move order, valued "
      "without building them, or None when the evaluator cannot. With `start_search` false, "
      "`state` lies below the root of the previous call that started a search (the evaluator "
      "may carry what it computed for the earlier parents over). With `undo` the evaluator may "
      "apply and undo the moves on (a copy of) `state`, as a search does where the game's undo "
      "is exact; the copy must end as it began.");
  m.def(
      "state_text",
      [](const open_spiel::State& root, const open_spiel::State& state) {
        const StateText text(root);
        std::string out;
        text.Write(state, out);
        return py::make_tuple(out, text.from_history());
      },
      py::arg("root"), py::arg("state"),
      "(text of `state` as the searches from `root` read it, whether it came from the history).");
  BindTwins(m);
}

}  // namespace spiel_bounded
