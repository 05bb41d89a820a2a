// Bindings of the evaluators and of the state text the searches read.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "connection_planes.h"
#include "contact_planes.h"
#include "evaluator.h"
#include "input_planes.h"
#include "open_spiel/spiel.h"
#include "state_text.h"
#include "territory_planes.h"

namespace py = pybind11;

namespace spiel_bounded {
namespace {

using Observations = py::array_t<float, py::array::c_style | py::array::forcecast>;

// What a derived-inputs binding says of observations not shaped for its `board`.
std::string ShapeMessage(py::ssize_t needed, const std::string& board) {
  return "observations must be [batch, >= " + std::to_string(needed) + "] for a " + board;
}

// Throws a ValueError unless `observations` is [batch, >= needed].
void CheckObservations(const Observations& observations, py::ssize_t needed,
                       const std::string& board) {
  if (observations.ndim() != 2 || observations.shape(1) < needed) {
    throw py::value_error(ShapeMessage(needed, board));
  }
}

// The inputs `planes` derives from each row of `observations`, [batch, planes.size()].
py::array_t<float> DerivedPlanes(const Observations& observations, const InputPlanes& planes) {
  const py::ssize_t batch = observations.shape(0);
  py::array_t<float> out({batch, py::ssize_t{planes.size()}});
  for (py::ssize_t row = 0; row < batch; ++row) {
    planes.Write(observations.data() + row * observations.shape(1),
                 out.mutable_data() + row * planes.size());
  }
  return out;
}

}  // namespace

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
      "mixed_evaluator",
      [](std::shared_ptr<Evaluator> first, std::shared_ptr<Evaluator> second, double weight,
         double low, double high) -> std::shared_ptr<Evaluator> {
        if (!first || !second) throw py::value_error("both mixed evaluators must be given");
        if (!(weight > 0.0 && weight < 1.0)) {
          throw py::value_error("mix weight must be strictly between 0 and 1");
        }
        return MakeMixedEvaluator(std::move(first), std::move(second), weight, low, high);
      },
      py::arg("first"), py::arg("second"), py::arg("weight"), py::arg("low"), py::arg("high"),
      "`(1 - weight) * first + weight * second` for every player, clamped to [low, high].");
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
      "connection_planes",
      [](const Observations& observations, int rows, int columns, const std::vector<int>& x_planes,
         const std::vector<int>& o_planes) {
        if (rows < 1 || columns < 1) throw py::value_error("rows and columns must be >= 1");
        int planes = 0;
        for (const std::vector<int>* side : {&x_planes, &o_planes}) {
          for (const int plane : *side) {
            if (plane < 0) throw py::value_error("observation planes must be >= 0");
            planes = std::max(planes, plane + 1);
          }
        }
        const std::string board = std::to_string(rows) + "x" + std::to_string(columns) + " board";
        CheckObservations(observations, py::ssize_t{planes} * rows * columns, board);
        return DerivedPlanes(observations, ConnectionPlanes(rows, columns, x_planes, o_planes));
      },
      py::arg("observations"), py::arg("rows"), py::arg("columns"), py::arg("x_planes"),
      py::arg("o_planes"),
      "The connection inputs [batch, size] of hex observations [batch, ...] "
      "(value_net.connections).");
  m.def(
      "territory_planes",
      [](const Observations& observations, int rows, int empty_plane,
         const std::array<int, 2>& player_planes) {
        const TerritoryPlanes territory(rows, empty_plane, player_planes);
        const int planes = 1 + std::max({empty_plane, player_planes[0], player_planes[1]});
        const py::ssize_t needed = py::ssize_t{planes} * rows * rows;
        const std::string board =
            std::to_string(rows) + "x" + std::to_string(rows) + " board, planes >= 0";
        if (std::min({empty_plane, player_planes[0], player_planes[1]}) < 0) {
          throw py::value_error(ShapeMessage(needed, board));
        }
        CheckObservations(observations, needed, board);
        return DerivedPlanes(observations, territory);
      },
      py::arg("observations"), py::arg("rows"), py::arg("empty_plane"), py::arg("player_planes"),
      "The territory inputs [batch, size] of amazons observations [batch, ...] "
      "(value_net.territory).");
  m.def(
      "contact_planes",
      [](const Observations& observations, int rows, int columns) {
        const ContactPlanes contacts(rows, columns);
        CheckObservations(observations, py::ssize_t{2} * rows * columns,
                          std::to_string(rows) + "x" + std::to_string(columns) + " board");
        return DerivedPlanes(observations, contacts);
      },
      py::arg("observations"), py::arg("rows"), py::arg("columns"),
      "The contact inputs [batch, size] of clobber observations [batch, ...] "
      "(value_net.contacts).");
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
