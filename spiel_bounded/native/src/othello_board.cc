#include "othello_board.h"

#include <algorithm>
#include <array>
#include <utility>

namespace spiel_bounded {
namespace {

constexpr int kSide = 8;
constexpr uint64_t kFirstColumn = 0x0101010101010101ULL;
constexpr uint64_t kLastColumn = kFirstColumn << (kSide - 1);

// A direction: the shift of a cell's bit (cell = row * 8 + column) and the cells a step may land
// on (a step right cannot land in the first column: it would have wrapped around a row).
struct Direction {
  int shift;
  uint64_t landing;
};
constexpr std::array<Direction, 8> kDirections = {{
    {1, ~kFirstColumn},
    {-1, ~kLastColumn},
    {kSide, ~uint64_t{0}},
    {-kSide, ~uint64_t{0}},
    {kSide + 1, ~kFirstColumn},
    {kSide - 1, ~kLastColumn},
    {-kSide + 1, ~kFirstColumn},
    {-kSide - 1, ~kLastColumn},
}};

uint64_t Step(uint64_t cells, const Direction& direction) {
  const uint64_t moved = direction.shift > 0 ? cells << direction.shift : cells >> -direction.shift;
  return moved & direction.landing;
}

// The empty cells where the player of `own` turns discs of `other`.
uint64_t Moves(uint64_t own, uint64_t other) {
  const uint64_t empty = ~(own | other);
  uint64_t moves = 0;
  for (const Direction& direction : kDirections) {
    uint64_t run = Step(own, direction) & other;
    for (int k = 0; k < kSide - 3; ++k) run |= Step(run, direction) & other;
    moves |= Step(run, direction) & empty;
  }
  return moves;
}

// The discs of `other` that a disc of `own` at `cell` turns.
uint64_t Turned(uint64_t own, uint64_t other, int cell) {
  uint64_t turned = 0;
  for (const Direction& direction : kDirections) {
    uint64_t run = 0;
    uint64_t next = Step(uint64_t{1} << cell, direction);
    while (next & other) {
      run |= next;
      next = Step(next, direction);
    }
    if (next & own) turned |= run;
  }
  return turned;
}

int Count(uint64_t cells) { return __builtin_popcountll(cells); }

constexpr char kColumnLabels[] = "  a b c d e f g h  ";

}  // namespace

OthelloBoard::OthelloBoard(std::shared_ptr<const open_spiel::Game> game) : Twin(std::move(game)) {
  // Black (x, player 0) on d5 and e4, white on d4 and e5 (row 1 is the top row).
  discs_[0] = (uint64_t{1} << (3 * kSide + 4)) | (uint64_t{1} << (4 * kSide + 3));
  discs_[1] = (uint64_t{1} << (3 * kSide + 3)) | (uint64_t{1} << (4 * kSide + 4));
}

std::unique_ptr<OthelloBoard> OthelloBoard::From(const open_spiel::State& state) {
  if (state.GetGame()->GetType().short_name != "othello") return nullptr;
  return Replayed(std::make_unique<OthelloBoard>(state.GetGame()), state);
}

open_spiel::Player OthelloBoard::CurrentPlayer() const {
  return IsTerminal() ? open_spiel::kTerminalPlayerId : player_;
}

std::vector<open_spiel::Action> OthelloBoard::LegalActions() const {
  if (IsTerminal()) return {};
  uint64_t moves = Moves(discs_[player_], discs_[1 - player_]);
  if (moves == 0) return {kPass};
  std::vector<open_spiel::Action> legal;
  legal.reserve(Count(moves));
  for (; moves != 0; moves &= moves - 1) legal.push_back(__builtin_ctzll(moves));
  return legal;
}

std::string OthelloBoard::ActionToString(open_spiel::Player player, open_spiel::Action move) const {
  if (move == kPass) return "pass";
  return std::string(1, static_cast<char>('a' + move % kSide)) + std::to_string(1 + move / kSide);
}

char OthelloBoard::Cell(int cell) const {
  if ((discs_[0] >> cell) & 1) return 'x';
  if ((discs_[1] >> cell) & 1) return 'o';
  return '-';
}

std::string OthelloBoard::ToString() const {
  std::string text = IsTerminal()   ? "Terminal State:\n"
                     : player_ == 0 ? "Black (x) to play:\n"
                                    : "White (o) to play:\n";
  text += kColumnLabels;
  text += '\n';
  for (int row = 0; row < kSide; ++row) {
    const std::string label = std::to_string(1 + row);
    text += label + ' ';
    for (int column = 0; column < kSide; ++column) {
      text += Cell(row * kSide + column);
      text += ' ';
    }
    text += label + '\n';
  }
  text += kColumnLabels;
  return text;
}

std::vector<double> OthelloBoard::Returns() const { return WinnerReturns(outcome_); }

std::string OthelloBoard::InformationStateString(open_spiel::Player player) const {
  return HistoryString();
}

void OthelloBoard::ObservationTensor(open_spiel::Player player, absl::Span<float> values) const {
  // Planes: empty, the player's discs, the opponent's; a cell each.
  constexpr int kCells = kSide * kSide;
  std::fill(values.begin(), values.end(), 0.0f);
  for (int cell = 0; cell < kCells; ++cell) {
    const int plane = (discs_[player] >> cell) & 1 ? 1 : (discs_[1 - player] >> cell) & 1 ? 2 : 0;
    values[plane * kCells + cell] = 1.0f;
  }
}

std::unique_ptr<open_spiel::State> OthelloBoard::Clone() const {
  return std::make_unique<OthelloBoard>(*this);
}

void OthelloBoard::DoApplyAction(open_spiel::Action move) {
  if (move == kPass) {
    // As OpenSpiel: a pass ends no game (the opponent, who has a move, moves).
    turned_.push_back(0);
    player_ = 1 - player_;
    return;
  }
  const int cell = static_cast<int>(move);
  const uint64_t turned = Turned(discs_[player_], discs_[1 - player_], cell);
  turned_.push_back(turned);
  discs_[player_] |= turned | (uint64_t{1} << cell);
  discs_[1 - player_] &= ~turned;
  if (Moves(discs_[0], discs_[1]) == 0 && Moves(discs_[1], discs_[0]) == 0) {
    const int black = Count(discs_[0]), white = Count(discs_[1]);
    outcome_ = black > white ? 0 : white > black ? 1 : kDraw;
  }
  player_ = 1 - player_;
}

void OthelloBoard::UndoAction(open_spiel::Player player, open_spiel::Action move) {
  const uint64_t turned = turned_.back();
  turned_.pop_back();
  if (move != kPass) {
    discs_[player] &= ~(turned | (uint64_t{1} << move));
    discs_[1 - player] |= turned;
  }
  player_ = player;
  outcome_ = kUnknown;
  ForgetLastMove();
}

}  // namespace spiel_bounded
