#include "placement.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "connect_four_board.h"

namespace spiel_bounded {
namespace {

// Whether `placement`'s children of `state` are terminal where OpenSpiel's are and otherwise
// observed as the observer observes them.
bool Agrees(const Placement& rules, const open_spiel::State& state,
            open_spiel::Observation& observation, const float* observed, int size) {
  observation.SetFrom(state, state.CurrentPlayer());
  const std::vector<float> parent(observed, observed + size);
  Placement placement = rules;
  placement.Begin(parent.data(), state.CurrentPlayer());
  for (const open_spiel::Action move : state.LegalActions()) {
    const std::unique_ptr<open_spiel::State> child = state.Child(move);
    const std::optional<Placement::Change> change = placement.Child(move);
    if (change.has_value() == child->IsTerminal()) return false;
    if (!change.has_value()) continue;
    std::vector<float> expected = parent;
    expected[change->emptied] = 0.0f;
    expected[change->filled] = 1.0f;
    observation.SetFrom(*child, child->CurrentPlayer());
    if (!std::equal(expected.begin(), expected.end(), observed)) return false;
  }
  return true;
}

}  // namespace

std::optional<Placement> Placement::Of(const open_spiel::Game& game,
                                       open_spiel::Observation& observation,
                                       const float* observed) {
  const std::string name = game.GetType().short_name;
  Placement rules;
  if (name == "connect_four") {
    const std::optional<ConnectFourShape> shape = ConnectFourShapeOf(game);
    if (!shape) return std::nullopt;
    rules.rows_ = shape->rows;
    rules.columns_ = shape->columns;
    rules.in_row_ = shape->in_row;
    rules.gravity_ = true;
    rules.empty_plane_ = 2;
    rules.plane_of_[0] = 0;
    rules.plane_of_[1] = 1;
  } else if (name == "tic_tac_toe") {
    rules.rows_ = rules.columns_ = rules.in_row_ = 3;
    rules.empty_plane_ = 0;
    rules.plane_of_[0] = 2;
    rules.plane_of_[1] = 1;
  } else {
    return std::nullopt;
  }
  const int size = 3 * rules.rows_ * rules.columns_;
  if (game.ObservationTensorSize() != size || rules.rows_ * rules.columns_ > LineMasks::kMaxCells ||
      rules.in_row_ < 1) {
    return std::nullopt;
  }
  rules.lines_ = std::make_shared<const LineMasks>(rules.rows_, rules.columns_, rules.in_row_);
  // The check costs about 15 us and a network is made for each search: it runs once per game.
  static std::mutex mutex;
  static std::map<std::string, bool> checked;
  const std::string key = game.ToString();
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = checked.find(key);
    if (found != checked.end()) return found->second ? std::optional(rules) : std::nullopt;
  }
  const std::unique_ptr<open_spiel::State> start = game.NewInitialState();
  const std::vector<open_spiel::Action> moves = start->LegalActions();
  const bool agrees = !moves.empty() && Agrees(rules, *start, observation, observed, size) &&
                      Agrees(rules, *start->Child(moves.back()), observation, observed, size);
  const std::lock_guard<std::mutex> lock(mutex);
  checked[key] = agrees;
  return agrees ? std::optional(rules) : std::nullopt;
}

int Placement::CellOf(const float* board, open_spiel::Action move, bool take_back) const {
  const int cells = rows_ * columns_;
  const float* empty = board + empty_plane_ * cells;
  if (!gravity_) {
    if (move < 0 || move >= cells) return -1;
    return (empty[move] == 0.0f) == take_back ? static_cast<int>(move) : -1;
  }
  if (move < 0 || move >= columns_) return -1;
  const int column = static_cast<int>(move);
  int row = 0;  // the lowest empty cell of the column, `rows_` when it is full
  while (row < rows_ && empty[row * columns_ + column] == 0.0f) ++row;
  if (take_back) --row;
  return 0 <= row && row < rows_ ? row * columns_ + column : -1;
}

int Placement::Follow(const std::vector<open_spiel::State::PlayerAction>& played,
                      const std::vector<open_spiel::State::PlayerAction>& history, float* board,
                      int* rows, float* xs, int limit) const {
  size_t common = 0;
  while (common < played.size() && common < history.size() &&
         played[common].player == history[common].player &&
         played[common].action == history[common].action) {
    ++common;
  }
  if (2 * (played.size() + history.size() - 2 * common) > static_cast<size_t>(limit)) return -1;
  const int cells = rows_ * columns_;
  int count = 0;
  // One move taken back (`sign` -1) or played (+1): the cell's empty and piece entries.
  const auto step = [&](const open_spiel::State::PlayerAction& move, float sign) {
    if (move.player != 0 && move.player != 1) return false;
    const int cell = CellOf(board, move.action, sign < 0.0f);
    if (cell < 0) return false;
    const int empty = empty_plane_ * cells + cell, piece = plane_of_[move.player] * cells + cell;
    if (board[piece] != (sign < 0.0f ? 1.0f : 0.0f)) return false;
    board[empty] = sign < 0.0f ? 1.0f : 0.0f;
    board[piece] = sign < 0.0f ? 0.0f : 1.0f;
    rows[count] = empty;
    xs[count++] = -sign;
    rows[count] = piece;
    xs[count++] = sign;
    return true;
  };
  for (size_t k = played.size(); k > common; --k) {
    if (!step(played[k - 1], -1.0f)) return -1;
  }
  for (size_t k = common; k < history.size(); ++k) {
    if (!step(history[k], 1.0f)) return -1;
  }
  return count;
}

void Placement::Begin(const float* board, int mover) {
  board_ = board;
  mover_ = mover;
  const int cells = rows_ * columns_;
  const float* empty = board + empty_plane_ * cells;
  const float* pieces = board + plane_of_[mover] * cells;
  empty_cells_ = 0;
  mover_stones_ = 0;
  for (int cell = 0; cell < cells; ++cell) {
    empty_cells_ += empty[cell] != 0.0f;
    mover_stones_ |= uint64_t{pieces[cell] != 0.0f} << cell;
  }
}

std::optional<Placement::Change> Placement::Child(open_spiel::Action move) const {
  const int cells = rows_ * columns_;
  const int cell = CellOf(board_, move, false);
  if (cell < 0) return std::nullopt;  // not a legal move: never asked
  if (lines_->Completes(mover_stones_ | uint64_t{1} << cell, cell) || empty_cells_ == 1) {
    return std::nullopt;
  }
  return Change{empty_plane_ * cells + cell, plane_of_[mover_] * cells + cell};
}

}  // namespace spiel_bounded
