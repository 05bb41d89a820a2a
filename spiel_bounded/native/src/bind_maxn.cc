// Bindings of the n-player family (max^n, directed offensive, BRS+) and of the evaluator that
// calls a Python evaluator back for every player's values at once.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "brs.h"
#include "budget.h"
#include "evaluator.h"
#include "maxn.h"
#include "open_spiel/spiel.h"

namespace py = pybind11;

namespace spiel_bounded {
namespace {

// A Python `values(state) -> list[float]` (checked on the Python side) called once per state:
// the n-player searches need every player's value, and one call costs a player's share of n.
class ValuesCallbackEvaluator final : public Evaluator {
 public:
  ValuesCallbackEvaluator(py::function values, std::string name)
      : values_(std::move(values)), name_(std::move(name)) {}

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    // The callback gets a copy that Python owns: it may keep it past the search.
    out = values_(state.Clone()).cast<std::vector<double>>();
  }
  double Value(const open_spiel::State& state, int player) override {
    Values(state, scratch_);
    return scratch_.at(player);
  }
  std::string name() const override { return name_; }

 private:
  py::function values_;
  std::string name_;
  std::vector<double> scratch_;
};

}  // namespace

void BindMaxn(py::module_& m) {
  m.def(
      "values_callback_evaluator",
      [](py::function values, std::string name) -> std::shared_ptr<Evaluator> {
        return std::make_shared<ValuesCallbackEvaluator>(std::move(values), std::move(name));
      },
      py::arg("values"), py::arg("name"),
      "Calls `values(state) -> list[float]` (every player's value) back: a Python evaluator.");

  py::class_<MaxnChild>(m, "MaxnChild")
      .def_readonly("action", &MaxnChild::action)
      .def_readonly("lower", &MaxnChild::lower)
      .def_readonly("upper", &MaxnChild::upper);
  py::class_<MaxnOutcome>(m, "MaxnOutcome")
      .def_readonly("completed", &MaxnOutcome::completed)
      .def_readonly("depth", &MaxnOutcome::depth)
      .def_readonly("action", &MaxnOutcome::action)
      .def_readonly("values", &MaxnOutcome::values)
      .def_readonly("horizon", &MaxnOutcome::horizon)
      .def_readonly("children", &MaxnOutcome::children)
      .def_readonly("stopped_by", &MaxnOutcome::stopped_by)
      .def_readonly("nodes", &MaxnOutcome::nodes)
      .def_readonly("evaluations", &MaxnOutcome::evaluations)
      .def_readonly("cutoffs", &MaxnOutcome::cutoffs)
      .def_readonly("researches", &MaxnOutcome::researches)
      .def_readonly("research_nodes", &MaxnOutcome::research_nodes)
      .def_readonly("seconds", &MaxnOutcome::seconds);
  m.def(
      "maxn",
      [](const open_spiel::State& state, Evaluator& evaluator, const std::string& pruning,
         double lower, double max_sum, double min_utility, bool ordering, bool undo,
         std::optional<int> target, int final_depth, std::optional<int64_t> max_nodes,
         std::optional<double> seconds, std::optional<py::function> clock) {
        MaxnConfig config;
        if (pruning != "none" && pruning != "shallow" && pruning != "last_branch" &&
            pruning != "speculative") {
          throw py::value_error("unknown pruning " + pruning);
        }
        config.pruning = pruning != "none";
        config.last_branch = pruning == "last_branch" || pruning == "speculative";
        config.speculative = pruning == "speculative";
        config.lower = lower;
        config.max_sum = max_sum;
        config.min_utility = min_utility;
        config.ordering = ordering;
        config.undo = undo;
        config.target = target.value_or(-1);
        config.final_depth = final_depth;
        if (config.target >= state.NumPlayers()) throw py::value_error("target out of range");
        Budget budget = MakeBudget(max_nodes, seconds, std::move(clock));
        return MaxnSearch(state, evaluator, config, budget);
      },
      py::arg("state"), py::arg("evaluator"), py::kw_only(), py::arg("pruning"), py::arg("lower"),
      py::arg("max_sum"), py::arg("min_utility"), py::arg("ordering"), py::arg("undo"),
      py::arg("target"), py::arg("final_depth"), py::arg("max_nodes") = py::none(),
      py::arg("seconds") = py::none(), py::arg("clock") = py::none(),
      "Max^n (or directed offensive against `target`) from a decision state "
      "(spiel_bounded.search.maxn decides the arguments).");

  py::class_<BrsChild>(m, "BrsChild")
      .def_readonly("action", &BrsChild::action)
      .def_readonly("lower", &BrsChild::lower)
      .def_readonly("upper", &BrsChild::upper);
  py::class_<BrsOutcome>(m, "BrsOutcome")
      .def_readonly("completed", &BrsOutcome::completed)
      .def_readonly("depth", &BrsOutcome::depth)
      .def_readonly("action", &BrsOutcome::action)
      .def_readonly("value", &BrsOutcome::value)
      .def_readonly("horizon", &BrsOutcome::horizon)
      .def_readonly("children", &BrsOutcome::children)
      .def_readonly("stopped_by", &BrsOutcome::stopped_by)
      .def_readonly("nodes", &BrsOutcome::nodes)
      .def_readonly("evaluations", &BrsOutcome::evaluations)
      .def_readonly("cutoffs", &BrsOutcome::cutoffs)
      .def_readonly("seconds", &BrsOutcome::seconds);
  m.def(
      "brs_plus",
      [](const open_spiel::State& state, Evaluator& evaluator, double min_utility, bool undo,
         int final_depth, std::optional<int64_t> max_nodes, std::optional<double> seconds,
         std::optional<py::function> clock) {
        BrsConfig config;
        config.min_utility = min_utility;
        config.undo = undo;
        config.final_depth = final_depth;
        Budget budget = MakeBudget(max_nodes, seconds, std::move(clock));
        return BrsSearch(state, evaluator, config, budget);
      },
      py::arg("state"), py::arg("evaluator"), py::kw_only(), py::arg("min_utility"),
      py::arg("undo"), py::arg("final_depth"), py::arg("max_nodes") = py::none(),
      py::arg("seconds") = py::none(), py::arg("clock") = py::none(),
      "BRS+ from a decision state (spiel_bounded.search.brs decides the arguments).");
}

}  // namespace spiel_bounded
