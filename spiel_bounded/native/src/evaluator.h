// Leaf evaluators of the native searches: the twin of `spiel_bounded.evaluators.base`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"

namespace spiel_bounded {

// A child's value for the searching player, and whether the child is terminal (its return).
struct LeafValue {
  double value = 0.0;
  bool terminal = false;
};

// Estimates a non-terminal state's value for each player, in the game's own utility range.
// Native evaluators are trusted (tests compare each with its Python twin); a Python evaluator
// called back from C++ is checked on the Python side, as on the Python engine.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Called before a search from `root` values states below it: an evaluator may choose there
  // how to read them (the board heuristics read connect_four's text from the history).
  virtual void StartSearch(const open_spiel::State& root) {}
  // The value of `state` for `player`.
  virtual double Value(const open_spiel::State& state, int player) = 0;
  // Every player's value of `state`, into `out` (resized to the number of players). The default
  // asks `Value` once per player; an evaluator that computes all at once overrides it.
  virtual void Values(const open_spiel::State& state, std::vector<double>& out) {
    out.resize(state.NumPlayers());
    for (int player = 0; player < state.NumPlayers(); ++player) out[player] = Value(state, player);
  }
  // Optional, for the children at a search's depth limit: when `BeginChildren` returns true,
  // `ChildValue(move)` gives each legal move's child valued for `player` without building it,
  // exactly what building it and reading its return (terminal) or `Value` would give. A search
  // asks for every child of one parent before it calls `BeginChildren` again, and keeps `parent`
  // alive meanwhile (an evaluator may read it in `ChildValue`). With `undo` (the game's
  // `UndoAction` restores a state exactly) an evaluator may apply a move to `parent` and undo
  // it inside `ChildValue` instead of copying it; `parent` is as it was whenever a call returns.
  virtual bool BeginChildren(open_spiel::State& parent, int player, bool undo) { return false; }
  virtual LeafValue ChildValue(open_spiel::Action move) { return {}; }
  // A short name for messages and stats ("zero", "heuristic", ...).
  virtual std::string name() const = 0;
  // Whether the states it is given leave C++ (a Python evaluator called back): a search then
  // gives it OpenSpiel's own states, not the package's twins (`ConnectFourBoard`).
  virtual bool ExportsStates() const { return false; }
};

// Values every state at `values[player]`.
std::unique_ptr<Evaluator> MakeConstantEvaluator(std::vector<double> values);

// The mean return over `playouts` uniformly random playouts (seeded, reproducible), clamped to
// [low, high] (a rounded mean of values in range can overshoot a bound by one ulp).
std::unique_ptr<Evaluator> MakeRolloutEvaluator(int playouts, uint64_t seed, double low,
                                                double high);

// `(1 - weight) * first + weight * second` for every player (0 < weight < 1), clamped to
// [low, high].
std::unique_ptr<Evaluator> MakeMixedEvaluator(std::shared_ptr<Evaluator> first,
                                              std::shared_ptr<Evaluator> second, double weight,
                                              double low, double high);

// Calls `value(state, player)` back (a Python evaluator).
std::unique_ptr<Evaluator> MakeCallbackEvaluator(
    std::function<double(const open_spiel::State&, int)> value, std::string name);

// The hand-written heuristic of `game` (connect_four, tic_tac_toe, breakthrough; amazons,
// backgammon, pig, chinese_checkers, maedn, yacht: heuristics_games.h), or nullptr when it has none
// in C++. Throws std::invalid_argument when the game prints its states in a layout the heuristic
// does not understand.
std::unique_ptr<Evaluator> MakeHeuristicEvaluator(const open_spiel::Game& game);

}  // namespace spiel_bounded
