#include "breakthrough_board.h"

#include <algorithm>
#include <array>
#include <utility>

namespace spiel_bounded {
namespace {

constexpr int kDirections = 6;  // per player 3, in the order OpenSpiel ranks them
constexpr std::array<int, kDirections> kRowSteps = {1, 1, 1, -1, -1, -1};
constexpr std::array<int, kDirections> kColumnSteps = {-1, 0, 1, -1, 0, 1};
constexpr int kFullRowsFrom = 6;  // boards of 6 rows or more start with two rows a side

}  // namespace

BreakthroughBoard::BreakthroughBoard(std::shared_ptr<const open_spiel::Game> game, int rows,
                                     int columns)
    : Twin(std::move(game)), rows_(rows), columns_(columns) {
  const int home_rows = rows >= kFullRowsFrom ? 2 : 1;
  for (int row = 0; row < rows; ++row) {
    first_column_ |= uint64_t{1} << (row * columns);
    last_column_ |= uint64_t{1} << (row * columns + columns - 1);
  }
  board_ = AllCells(rows * columns);
  for (int row = 0; row < home_rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      pieces_[0] |= uint64_t{1} << (row * columns + column);
      pieces_[1] |= uint64_t{1} << ((rows - 1 - row) * columns + column);
    }
  }
}

std::unique_ptr<BreakthroughBoard> BreakthroughBoard::From(const open_spiel::State& state) {
  const std::shared_ptr<const open_spiel::Game> game = state.GetGame();
  if (game->GetType().short_name != "breakthrough") return nullptr;
  const std::optional<int> rows = IntParameter(*game, "rows"),
                           columns = IntParameter(*game, "columns");
  if (!rows || !columns || *rows < 2 || *columns < 2 || *rows * *columns > kMaxCells)
    return nullptr;
  return Replayed(std::make_unique<BreakthroughBoard>(game, *rows, *columns), state);
}

BreakthroughBoard::Move BreakthroughBoard::Unrank(open_spiel::Action move) const {
  const bool capture = move % 2 == 1;
  const int direction = static_cast<int>(move / 2 % kDirections);
  const int from = static_cast<int>(move / 2 / kDirections);
  const int to = from + kRowSteps[direction] * columns_ + kColumnSteps[direction];
  return {from, to, capture};
}

open_spiel::Action BreakthroughBoard::Rank(int from, int direction, bool capture) const {
  return (static_cast<open_spiel::Action>(from) * kDirections + direction) * 2 + (capture ? 1 : 0);
}

int BreakthroughBoard::Winner() const {
  if (reached_ >= 0) return reached_;
  if (pieces_[1] == 0) return 0;
  if (pieces_[0] == 0) return 1;
  return -1;
}

bool BreakthroughBoard::IsTerminal() const { return Winner() >= 0; }

open_spiel::Player BreakthroughBoard::CurrentPlayer() const {
  return IsTerminal() ? open_spiel::kTerminalPlayerId : player_;
}

std::vector<open_spiel::Action> BreakthroughBoard::LegalActions() const {
  if (IsTerminal()) return {};
  // For each of the player's three directions, the pieces that can step that way (all at once,
  // by shifts); then the moves in OpenSpiel's order: by piece, then direction.
  const uint64_t own = pieces_[player_], other = pieces_[1 - player_];
  const uint64_t empty = board_ & ~(own | other);
  const int first = 3 * player_;
  std::array<uint64_t, 3> movers{}, capturers{};
  for (int step = 0; step < 3; ++step) {
    const int column_step = kColumnSteps[first + step];
    const uint64_t able = column_step < 0   ? own & ~first_column_
                          : column_step > 0 ? own & ~last_column_
                                            : own;
    const int shift = kRowSteps[first] * columns_ + column_step;
    // The pieces whose square in this direction is empty / the opponent's.
    const auto back = [shift](uint64_t cells) {
      return shift > 0 ? cells >> shift : cells << -shift;
    };
    movers[step] = able & back(empty);
    if (column_step != 0) capturers[step] = able & back(other);  // captures are diagonal only
  }
  // Written without branches (a random playout's moves defeat the predictor), then copied.
  std::array<open_spiel::Action, 3 * kMaxCells> moves;
  int count = 0;
  for (uint64_t from = movers[0] | movers[1] | movers[2] | capturers[0] | capturers[2]; from != 0;
       from &= from - 1) {
    const int cell = __builtin_ctzll(from);
    for (int step = 0; step < 3; ++step) {
      const bool capture = (capturers[step] >> cell) & 1;
      moves[count] = Rank(cell, first + step, capture);
      count += static_cast<int>(((movers[step] | capturers[step]) >> cell) & 1);
    }
  }
  std::vector<open_spiel::Action> legal(moves.begin(), moves.begin() + count);
  return legal;
}

std::string BreakthroughBoard::ActionToString(open_spiel::Player player,
                                              open_spiel::Action move) const {
  const Move m = Unrank(move);
  auto square = [this](int cell) {
    return std::string{static_cast<char>('a' + cell % columns_),
                       static_cast<char>('1' + rows_ - 1 - cell / columns_)};
  };
  return square(m.from) + square(m.to) + (m.capture ? "*" : "");
}

std::string BreakthroughBoard::ToString() const {
  std::string text;
  for (int row = 0; row < rows_; ++row) {
    text += static_cast<char>('1' + rows_ - 1 - row);
    for (int column = 0; column < columns_; ++column) {
      const uint64_t cell = uint64_t{1} << (row * columns_ + column);
      text += (pieces_[0] & cell) ? 'b' : (pieces_[1] & cell) ? 'w' : '.';
    }
    text += '\n';
  }
  text += ' ';
  for (int column = 0; column < columns_; ++column) text += static_cast<char>('a' + column);
  text += '\n';
  return text;
}

std::vector<double> BreakthroughBoard::Returns() const { return WinnerReturns(Winner()); }

void BreakthroughBoard::ObservationTensor(open_spiel::Player player,
                                          absl::Span<float> values) const {
  // Planes: black (player 0), white, empty; a cell each.
  const int cells = rows_ * columns_;
  std::fill(values.begin(), values.end(), 0.0f);
  for (int cell = 0; cell < cells; ++cell) {
    const int plane = (pieces_[0] >> cell) & 1 ? 0 : (pieces_[1] >> cell) & 1 ? 1 : 2;
    values[plane * cells + cell] = 1.0f;
  }
}

std::unique_ptr<open_spiel::State> BreakthroughBoard::Clone() const {
  return std::make_unique<BreakthroughBoard>(*this);
}

void BreakthroughBoard::DoApplyAction(open_spiel::Action move) {
  const Move m = Unrank(move);
  const uint64_t from = uint64_t{1} << m.from, to = uint64_t{1} << m.to;
  pieces_[1 - player_] &= ~to;
  pieces_[player_] = (pieces_[player_] & ~from) | to;
  const int far_row = player_ == 0 ? rows_ - 1 : 0;
  if (m.to / columns_ == far_row) reached_ = player_;
  player_ = 1 - player_;
}

void BreakthroughBoard::UndoAction(open_spiel::Player player, open_spiel::Action move) {
  const Move m = Unrank(move);
  const uint64_t from = uint64_t{1} << m.from, to = uint64_t{1} << m.to;
  pieces_[player] = (pieces_[player] & ~to) | from;
  if (m.capture) pieces_[1 - player] |= to;
  player_ = player;
  reached_ = -1;
  ForgetLastMove();
}

}  // namespace spiel_bounded
