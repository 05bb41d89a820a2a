// Binding of the exact game solvers: connect_four's weak solver (connect_four_solver.h) and
// clobber's (clobber_solver.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "bindings.h"
#include "budget.h"
#include "clobber_solver.h"
#include "connect_four_solver.h"

namespace py = pybind11;

namespace spiel_bounded {
namespace {

// `solve(budget)` on a budget of `max_nodes` and `seconds`, or None when the budget ran out.
template <typename Result, typename Solve>
std::optional<Result> Within(std::optional<int64_t> max_nodes, std::optional<double> seconds,
                             Solve&& solve) {
  Budget budget = MakeBudget(max_nodes, seconds, std::nullopt);
  try {
    return solve(budget);
  } catch (const SearchStopped&) {
    return std::nullopt;
  }
}

}  // namespace

void BindSolvers(py::module_& m) {
  py::class_<ConnectFourSolver>(m, "ConnectFourSolver")
      .def(py::init<int, int, int>(), py::arg("rows"), py::arg("columns"),
           py::arg("table_bits") = 22)
      .def(
          "solve",
          [](ConnectFourSolver& solver, const std::vector<int>& moves,
             std::optional<int64_t> max_nodes, std::optional<double> seconds) {
            return Within<int>(max_nodes, seconds,
                               [&](Budget& budget) { return solver.Solve(moves, budget); });
          },
          py::arg("moves"), py::kw_only(), py::arg("max_nodes") = py::none(),
          py::arg("seconds") = py::none())
      .def(
          "move_values",
          [](ConnectFourSolver& solver, const std::vector<int>& moves,
             std::optional<int64_t> max_nodes, std::optional<double> seconds) {
            return Within<std::vector<int>>(max_nodes, seconds, [&](Budget& budget) {
              return solver.MoveValues(moves, budget);
            });
          },
          py::arg("moves"), py::kw_only(), py::arg("max_nodes") = py::none(),
          py::arg("seconds") = py::none())
      .def_property_readonly("nodes", &ConnectFourSolver::nodes);
  m.attr("CONNECT_FOUR_FULL") = ConnectFourSolver::kFull;

  py::class_<ClobberSolver>(m, "ClobberSolver")
      .def(py::init<int, int, int>(), py::arg("rows"), py::arg("columns"), py::arg("table_bits"))
      .def(
          "solve",
          [](ClobberSolver& solver, const std::vector<int64_t>& moves,
             std::optional<int64_t> max_nodes, std::optional<double> seconds) {
            return Within<int>(max_nodes, seconds,
                               [&](Budget& budget) { return solver.Solve(moves, budget); });
          },
          py::arg("moves"), py::kw_only(), py::arg("max_nodes") = py::none(),
          py::arg("seconds") = py::none())
      .def(
          "move_values",
          [](ClobberSolver& solver, const std::vector<int64_t>& moves,
             std::optional<int64_t> max_nodes, std::optional<double> seconds) {
            return Within<std::vector<std::pair<int64_t, int>>>(
                max_nodes, seconds,
                [&](Budget& budget) { return solver.MoveValues(moves, budget); });
          },
          py::arg("moves"), py::kw_only(), py::arg("max_nodes") = py::none(),
          py::arg("seconds") = py::none())
      .def(
          "best_move",
          [](ClobberSolver& solver, const std::vector<int64_t>& moves,
             std::optional<int64_t> max_nodes, std::optional<double> seconds) {
            return Within<std::pair<int64_t, int>>(
                max_nodes, seconds, [&](Budget& budget) { return solver.BestMove(moves, budget); });
          },
          py::arg("moves"), py::kw_only(), py::arg("max_nodes") = py::none(),
          py::arg("seconds") = py::none())
      .def_property_readonly("nodes", &ClobberSolver::nodes);
}

}  // namespace spiel_bounded
