#include "connect_four_board.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace spiel_bounded {
namespace {

constexpr char kPieces[2] = {'x', 'o'};  // player 0, player 1, as OpenSpiel prints them
constexpr int kEmptyPlane = 2;           // observation planes: x, o, empty

}  // namespace

ConnectFourBoard::ConnectFourBoard(std::shared_ptr<const open_spiel::Game> game, int rows,
                                   int columns, int in_row)
    : Twin(std::move(game)),
      rows_(rows),
      columns_(columns),
      lines_(std::make_shared<const LineMasks>(rows, columns, in_row)) {}

std::optional<ConnectFourShape> ConnectFourShapeOf(const open_spiel::Game& game) {
  if (game.GetType().short_name != "connect_four") return std::nullopt;
  const open_spiel::GameParameters params = game.GetParameters();
  const auto egocentric = params.find("egocentric_obs_tensor");
  if (egocentric != params.end() && egocentric->second.bool_value()) return std::nullopt;
  const std::optional<int> rows = IntParameter(game, "rows"),
                           columns = IntParameter(game, "columns"),
                           in_row = IntParameter(game, "x_in_row");
  if (!rows || !columns || !in_row) return std::nullopt;
  return ConnectFourShape{*rows, *columns, *in_row};
}

std::unique_ptr<ConnectFourBoard> ConnectFourBoard::From(const open_spiel::State& state) {
  const std::shared_ptr<const open_spiel::Game> game = state.GetGame();
  const std::optional<ConnectFourShape> shape = ConnectFourShapeOf(*game);
  if (!shape) return nullptr;
  const auto [rows, columns, in_row] = *shape;
  if (rows < 1 || columns < 1 || rows * columns > LineMasks::kMaxCells || in_row < 1) {
    return nullptr;
  }
  return Replayed(std::make_unique<ConnectFourBoard>(game, rows, columns, in_row), state);
}

bool ConnectFourBoard::Filled(int player, int height, int column) const {
  return (stones_[player] >> (height * columns_ + column)) & 1;
}

open_spiel::Player ConnectFourBoard::CurrentPlayer() const {
  return IsTerminal() ? open_spiel::kTerminalPlayerId : player_;
}

std::vector<open_spiel::Action> ConnectFourBoard::LegalActions() const {
  std::vector<open_spiel::Action> moves;
  if (IsTerminal()) return moves;
  moves.reserve(columns_);
  for (int column = 0; column < columns_; ++column) {
    if (heights_[column] < rows_) moves.push_back(column);
  }
  return moves;
}

std::string ConnectFourBoard::ActionToString(open_spiel::Player player,
                                             open_spiel::Action move) const {
  return kPieces[player == 0 ? 0 : 1] + std::to_string(move);
}

std::string ConnectFourBoard::ToString() const {
  // The top row first.
  std::string text;
  text.reserve(rows_ * (columns_ + 1));
  for (int height = rows_ - 1; height >= 0; --height) {
    for (int column = 0; column < columns_; ++column) {
      text += Filled(0, height, column) ? kPieces[0] : Filled(1, height, column) ? kPieces[1] : '.';
    }
    text += '\n';
  }
  return text;
}

std::vector<double> ConnectFourBoard::Returns() const { return WinnerReturns(outcome_); }

std::string ConnectFourBoard::InformationStateString(open_spiel::Player player) const {
  return HistoryString();
}

void ConnectFourBoard::ObservationTensor(open_spiel::Player player,
                                         absl::Span<float> values) const {
  const int cells = rows_ * columns_;
  std::fill(values.begin(), values.end(), 0.0f);
  for (int cell = 0; cell < cells; ++cell) {
    const int plane = (stones_[0] >> cell) & 1 ? 0 : (stones_[1] >> cell) & 1 ? 1 : kEmptyPlane;
    values[plane * cells + cell] = 1.0f;
  }
}

std::unique_ptr<open_spiel::State> ConnectFourBoard::Clone() const {
  return std::make_unique<ConnectFourBoard>(*this);
}

void ConnectFourBoard::DoApplyAction(open_spiel::Action move) {
  const int column = static_cast<int>(move);
  const int cell = heights_[column]++ * columns_ + column;
  stones_[player_] |= uint64_t{1} << cell;
  ++pieces_;
  if (lines_->Completes(stones_[player_], cell)) {
    outcome_ = player_;
  } else if (pieces_ == rows_ * columns_) {
    outcome_ = kDraw;
  }
  player_ = 1 - player_;
}

void ConnectFourBoard::UndoAction(open_spiel::Player player, open_spiel::Action move) {
  const int column = static_cast<int>(move);
  const int height = --heights_[column];
  stones_[player] &= ~(uint64_t{1} << (height * columns_ + column));
  --pieces_;
  player_ = player;
  outcome_ = kUnknown;
  ForgetLastMove();
}

}  // namespace spiel_bounded
