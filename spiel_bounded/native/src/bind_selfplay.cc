// Binding of a whole self-play game (selfplay.h), whose random draws a Python object makes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.h"
#include "keys.h"
#include "selfplay.h"

namespace py = pybind11;

namespace spiel_bounded {
namespace {

// `values` as a float32 array of `columns` columns.
template <typename T>
py::array_t<float> Matrix(const std::vector<T>& values, int columns) {
  const py::ssize_t rows = columns ? static_cast<py::ssize_t>(values.size()) / columns : 0;
  py::array_t<float> out({rows, py::ssize_t{columns}});
  std::transform(values.begin(), values.end(), out.mutable_data(),
                 [](T value) { return static_cast<float>(value); });
  return out;
}

MovePolicy ParsePolicy(const std::string& policy) {
  if (policy == "pessimistic") return MovePolicy::kPessimistic;
  if (policy == "optimistic") return MovePolicy::kOptimistic;
  if (policy == "average") return MovePolicy::kAverage;
  throw std::invalid_argument("unknown policy '" + policy +
                              "'; accepted: pessimistic, optimistic, average");
}

BelowLabels ParseBelow(const std::string& below) {
  if (below == "none") return BelowLabels::kNone;
  if (below == "root_children") return BelowLabels::kRootChildren;
  if (below == "table") return BelowLabels::kTable;
  throw std::invalid_argument("unknown labels below '" + below +
                              "'; accepted: none, root_children, table");
}

// The draws of `draws`, a Python object with the methods opening, explore, chance and tie.
SelfPlayChoices PythonChoices(const py::object& draws) {
  SelfPlayChoices choices;
  choices.opening = [draws](const std::vector<open_spiel::Action>& legal) {
    return draws.attr("opening")(legal).cast<open_spiel::Action>();
  };
  choices.explore = [draws](const std::vector<open_spiel::Action>& legal) {
    return draws.attr("explore")(legal).cast<std::optional<open_spiel::Action>>();
  };
  choices.chance = [draws](const open_spiel::ActionsAndProbs& outcomes) {
    std::vector<open_spiel::Action> actions;
    std::vector<double> probabilities;
    for (const auto& [action, probability] : outcomes) {
      actions.push_back(action);
      probabilities.push_back(probability);
    }
    return draws.attr("chance")(actions, probabilities).cast<open_spiel::Action>();
  };
  choices.tie = [draws](int player, const std::vector<open_spiel::Action>& tied) {
    return draws.attr("tie")(player, tied).cast<open_spiel::Action>();
  };
  return choices;
}

}  // namespace

void BindSelfPlay(py::module_& m) {
  py::class_<SelfPlayGame>(m, "SelfPlayGame")
      .def_property_readonly(
          "features", [](const SelfPlayGame& g) { return Matrix(g.played.features, g.size); })
      .def_property_readonly("keys", [](const SelfPlayGame& g) { return g.played.keys; })
      .def_property_readonly("search",
                             [](const SelfPlayGame& g) { return Matrix(g.search, g.players); })
      .def_property_readonly(
          "lower", [](const SelfPlayGame& g) { return Matrix(g.played.lower, g.players); })
      .def_property_readonly(
          "upper", [](const SelfPlayGame& g) { return Matrix(g.played.upper, g.players); })
      .def_property_readonly("exact",
                             [](const SelfPlayGame& g) {
                               py::array_t<bool> out(static_cast<py::ssize_t>(g.exact.size()));
                               std::copy(g.exact.begin(), g.exact.end(), out.mutable_data());
                               return out;
                             })
      .def_readonly("returns", &SelfPlayGame::returns)
      .def_property_readonly("below_features",
                             [](const SelfPlayGame& g) { return Matrix(g.below.features, g.size); })
      .def_property_readonly("below_keys", [](const SelfPlayGame& g) { return g.below.keys; })
      .def_property_readonly("below_lower",
                             [](const SelfPlayGame& g) { return Matrix(g.below.lower, g.players); })
      .def_property_readonly(
          "below_upper", [](const SelfPlayGame& g) { return Matrix(g.below.upper, g.players); });
  m.def(
      "self_play_game",
      [](const open_spiel::Game& game, Evaluator& evaluator, const py::object& draws,
         double epsilon, bool transpositions, bool move_ordering, int64_t tt_capacity, bool carry,
         bool probing, bool undo, const std::string& key_kind, int first_depth, int final_depth,
         int endgame_plies, std::optional<int64_t> max_nodes, std::optional<double> seconds,
         const std::string& policy, int opening_moves, bool bounds_game_value, double total,
         const std::string& below, int label_min_depth, const std::string& chance_view,
         const std::string& lifted_view) {
        SelfPlayRules rules;
        rules.search.epsilon = epsilon;
        rules.search.transpositions = transpositions;
        rules.search.move_ordering = move_ordering;
        rules.search.tt_capacity = tt_capacity;
        rules.search.carry = carry;
        rules.search.probing = probing;
        rules.search.undo = undo;
        rules.search.key_kind = ParseKeyKind(key_kind);
        rules.search.first_depth = first_depth;
        rules.search.final_depth = final_depth;
        rules.endgame_plies = endgame_plies;
        rules.policy = ParsePolicy(policy);
        rules.opening_moves = opening_moves;
        rules.bounds_game_value = bounds_game_value;
        rules.total = total;
        rules.below = ParseBelow(below);
        rules.label_min_depth = label_min_depth;
        Features features(game, {chance_view, lifted_view});
        return PlaySelfPlayGame(game, evaluator, rules, PythonChoices(draws), features,
                                [&]() { return MakeBudget(max_nodes, seconds, std::nullopt); });
      },
      py::arg("game"), py::arg("evaluator"), py::arg("draws"), py::kw_only(), py::arg("epsilon"),
      py::arg("transpositions"), py::arg("move_ordering"), py::arg("tt_capacity"), py::arg("carry"),
      py::arg("probing"), py::arg("undo"), py::arg("key_kind"), py::arg("first_depth"),
      py::arg("final_depth"), py::arg("endgame_plies"), py::arg("max_nodes") = py::none(),
      py::arg("seconds") = py::none(), py::arg("policy"), py::arg("opening_moves"),
      py::arg("bounds_game_value"), py::arg("total"), py::arg("below"), py::arg("label_min_depth"),
      py::arg("chance_view"), py::arg("lifted_view"),
      "One self-play game of the alpha-beta family from the initial state "
      "(spiel_bounded.training.native_selfplay decides the arguments; `draws` makes the random "
      "choices: opening(legal), explore(legal), chance(outcomes, probabilities), "
      "tie(player, tied)).");
}

}  // namespace spiel_bounded
