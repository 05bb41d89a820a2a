#include "clobber_board.h"

#include <algorithm>
#include <array>
#include <utility>

namespace spiel_bounded {
namespace {

constexpr int kDirections = ClobberGeometry::kDirections;
constexpr char kPieces[2] = {'o', 'x'};  // player 0 (white), player 1 (black)

}  // namespace

ClobberBoard::ClobberBoard(std::shared_ptr<const open_spiel::Game> game, int rows, int columns)
    : Twin(std::move(game)), geometry_(rows, columns), pieces_(geometry_.Checkerboard()) {}

std::unique_ptr<ClobberBoard> ClobberBoard::From(const open_spiel::State& state) {
  const std::shared_ptr<const open_spiel::Game> game = state.GetGame();
  if (game->GetType().short_name != "clobber") return nullptr;
  const std::optional<int> rows = IntParameter(*game, "rows"),
                           columns = IntParameter(*game, "columns");
  if (!rows || !columns || *rows < 1 || *columns < 1 || *rows * *columns > kMaxCells)
    return nullptr;
  return Replayed(std::make_unique<ClobberBoard>(game, *rows, *columns), state);
}

int ClobberBoard::Target(open_spiel::Action move) const {
  return geometry_.Target(static_cast<int>(move / kDirections),
                          static_cast<int>(move % kDirections));
}

open_spiel::Player ClobberBoard::CurrentPlayer() const {
  return IsTerminal() ? open_spiel::kTerminalPlayerId : player_;
}

std::vector<open_spiel::Action> ClobberBoard::LegalActions() const {
  if (IsTerminal()) return {};
  // For each direction, the pieces with an opponent's next to them that way (all at once, by
  // shifts); then the moves in OpenSpiel's order: by piece, then direction.
  const std::array<uint64_t, kDirections> capturers =
      geometry_.Capturers(pieces_[player_], pieces_[1 - player_]);
  // Written without branches (a random playout's moves defeat the predictor), then copied.
  std::array<open_spiel::Action, kDirections * kMaxCells> moves;
  int count = 0;
  for (uint64_t from = capturers[0] | capturers[1] | capturers[2] | capturers[3]; from != 0;
       from &= from - 1) {
    const int cell = __builtin_ctzll(from);
    for (int direction = 0; direction < kDirections; ++direction) {
      moves[count] = static_cast<open_spiel::Action>(cell) * kDirections + direction;
      count += static_cast<int>((capturers[direction] >> cell) & 1);
    }
  }
  std::vector<open_spiel::Action> legal(moves.begin(), moves.begin() + count);
  return legal;
}

std::string ClobberBoard::RowLabel(int row) const { return std::to_string(geometry_.rows() - row); }

std::string ClobberBoard::ActionToString(open_spiel::Player player, open_spiel::Action move) const {
  const int from = static_cast<int>(move / kDirections), to = Target(move);
  const int columns = geometry_.columns();
  return static_cast<char>('a' + from % columns) + RowLabel(from / columns) +
         static_cast<char>('a' + to % columns) + RowLabel(to / columns);
}

std::string ClobberBoard::ToString() const {
  // Row labels of two digits are aligned by a space before those of one.
  const int rows = geometry_.rows(), columns = geometry_.columns();
  const bool wide = rows >= 10;
  std::string text;
  for (int row = 0; row < rows; ++row) {
    if (wide && rows - row < 10) text += ' ';
    text += RowLabel(row);
    for (int column = 0; column < columns; ++column) {
      const int cell = row * columns + column;
      text += (pieces_[0] >> cell) & 1 ? kPieces[0] : (pieces_[1] >> cell) & 1 ? kPieces[1] : '.';
    }
    text += '\n';
  }
  text += wide ? "  " : " ";
  for (int column = 0; column < columns; ++column) text += static_cast<char>('a' + column);
  text += '\n';
  return text;
}

std::vector<double> ClobberBoard::Returns() const { return WinnerReturns(winner_); }

std::string ClobberBoard::InformationStateString(open_spiel::Player player) const {
  return HistoryString();
}

void ClobberBoard::ObservationTensor(open_spiel::Player player, absl::Span<float> values) const {
  // Planes: the player's pieces, the opponent's, empty; a cell each.
  const int cells = geometry_.rows() * geometry_.columns();
  std::fill(values.begin(), values.end(), 0.0f);
  for (int cell = 0; cell < cells; ++cell) {
    const int plane = (pieces_[player] >> cell) & 1 ? 0 : (pieces_[1 - player] >> cell) & 1 ? 1 : 2;
    values[plane * cells + cell] = 1.0f;
  }
}

std::unique_ptr<open_spiel::State> ClobberBoard::Clone() const {
  return std::make_unique<ClobberBoard>(*this);
}

void ClobberBoard::DoApplyAction(open_spiel::Action move) {
  const uint64_t from = uint64_t{1} << (move / kDirections), to = uint64_t{1} << Target(move);
  pieces_[1 - player_] &= ~to;
  pieces_[player_] = (pieces_[player_] & ~from) | to;
  if (!geometry_.Touch(pieces_[0], pieces_[1])) winner_ = player_;
  player_ = 1 - player_;
}

void ClobberBoard::UndoAction(open_spiel::Player player, open_spiel::Action move) {
  const uint64_t from = uint64_t{1} << (move / kDirections), to = uint64_t{1} << Target(move);
  pieces_[player] = (pieces_[player] & ~to) | from;
  pieces_[1 - player] |= to;
  player_ = player;
  winner_ = -1;
  ForgetLastMove();
}

}  // namespace spiel_bounded
