#include "connect_four_solver.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace spiel_bounded {
namespace {

constexpr int kMaxColumns = 16;

}  // namespace

ConnectFourSolver::ConnectFourSolver(int rows, int columns, int table_bits)
    : rows_(rows), columns_(columns) {
  // The lines' shifts reach 3 * (rows + 2) bits, which must stay inside the 64-bit word.
  if (rows < 1 || columns < 1 || (rows + 1) * columns > 64 || columns > kMaxColumns ||
      3 * (rows + 2) >= 64) {
    throw std::invalid_argument(
        "the connect_four solver needs a board of (rows + 1) * columns <= 64 cells, at most " +
        std::to_string(kMaxColumns) + " columns and at most 19 rows, got " + std::to_string(rows) +
        " x " + std::to_string(columns));
  }
  if (table_bits < 1 || table_bits > 30) {
    throw std::invalid_argument("table_bits must be in [1, 30], got " + std::to_string(table_bits));
  }
  for (int column = 0; column < columns; ++column) {
    bottom_ |= uint64_t{1} << (column * (rows + 1));
    board_ |= ColumnMask(column);
  }
  for (int column = 0; column < columns; ++column) order_.push_back(column);
  std::stable_sort(order_.begin(), order_.end(), [columns](int a, int b) {  // the centre first
    return std::abs(2 * a - columns + 1) < std::abs(2 * b - columns + 1);
  });
  table_.resize(size_t{1} << table_bits);
  shift_ = 64 - table_bits;
}

uint64_t ConnectFourSolver::ColumnMask(int column) const {
  return ((uint64_t{1} << rows_) - 1) << (column * (rows_ + 1));
}

uint64_t ConnectFourSolver::Playable(const Position& position) const {
  return (position.mask + bottom_) & board_;
}

// The empty cells where `stones` would complete a line of four.
uint64_t ConnectFourSolver::Winning(uint64_t stones, uint64_t mask) const {
  uint64_t found = (stones << 1) & (stones << 2) & (stones << 3);  // vertical
  for (const int shift : {rows_ + 1, rows_, rows_ + 2}) {          // horizontal, diagonals
    uint64_t pair = (stones << shift) & (stones << (2 * shift));
    found |= pair & (stones << (3 * shift));
    found |= pair & (stones >> shift);
    pair = (stones >> shift) & (stones >> (2 * shift));
    found |= pair & (stones << shift);
    found |= pair & (stones >> (3 * shift));
  }
  return found & (board_ ^ mask);
}

bool ConnectFourSolver::Aligned(uint64_t stones, int height) {
  for (const int shift : {1, height + 1, height, height + 2}) {
    const uint64_t pair = stones & (stones >> shift);
    if ((pair & (pair >> (2 * shift))) != 0) return true;
  }
  return false;
}

bool ConnectFourSolver::WinsNow(const Position& position) const {
  return (Winning(position.current, position.mask) & Playable(position)) != 0;
}

// The moves that do not let the opponent win at once: the one that blocks the opponent's
// only immediate win if it has one (none if it has two), never below an opponent's winning cell.
uint64_t ConnectFourSolver::SafeMoves(const Position& position) const {
  uint64_t playable = Playable(position);
  const uint64_t threats = Winning(position.current ^ position.mask, position.mask);
  const uint64_t forced = playable & threats;
  if (forced != 0) {
    if ((forced & (forced - 1)) != 0) return 0;
    playable = forced;
  }
  return playable & ~(threats >> 1);
}

ConnectFourSolver::Position ConnectFourSolver::Played(const Position& position, uint64_t move) {
  return Position{position.current ^ position.mask, position.mask | move, position.moves + 1};
}

ConnectFourSolver::Entry& ConnectFourSolver::Slot(uint64_t key) {
  return table_[(key * 0x9E3779B97F4A7C15ULL) >> shift_];
}

// Fail-soft alpha-beta on the values -1, 0, 1 of a position whose mover cannot win at once.
int ConnectFourSolver::Negamax(const Position& position, int alpha, int beta, Budget& budget) {
  budget.Tick();
  ++nodes_;
  const uint64_t safe = SafeMoves(position);
  if (safe == 0) return -1;
  if (position.moves >= rows_ * columns_ - 2) return 0;  // the last two cells cannot make a line
  const uint64_t key = position.current + position.mask;
  Entry& slot = Slot(key);
  int lower = -1;
  int upper = 1;
  if (slot.key == key) {
    lower = slot.lower;
    upper = slot.upper;
    if (lower >= beta || lower == upper) return lower;
    if (upper <= alpha) return upper;
    alpha = std::max(alpha, lower);
    beta = std::min(beta, upper);
  }
  std::array<uint64_t, kMaxColumns> moves{};
  std::array<int, kMaxColumns> scores{};
  int count = 0;
  for (const int column : order_) {
    const uint64_t move = safe & ColumnMask(column);
    if (move == 0) continue;
    const int score = __builtin_popcountll(Winning(position.current | move, position.mask | move));
    int at = count++;
    for (; at > 0 && scores[at - 1] < score; --at) {  // stable: the centre first among equals
      moves[at] = moves[at - 1];
      scores[at] = scores[at - 1];
    }
    moves[at] = move;
    scores[at] = score;
  }
  int best = -2;
  for (int i = 0; i < count; ++i) {
    const int value = -Negamax(Played(position, moves[i]), -beta, -std::max(alpha, best), budget);
    if (value > best) {
      best = value;
      if (best >= beta) break;
    }
  }
  if (slot.key != key) {  // none was there, or the search below put another position's
    slot = Entry{key, static_cast<int8_t>(lower), static_cast<int8_t>(upper)};
  }
  if (best >= beta) {
    slot.lower = static_cast<int8_t>(std::max<int>(slot.lower, best));
  } else if (best <= alpha) {
    slot.upper = static_cast<int8_t>(std::min<int>(slot.upper, best));
  } else {
    slot.lower = slot.upper = static_cast<int8_t>(best);
  }
  return best;
}

int ConnectFourSolver::Value(const Position& position, Budget& budget) {
  if (WinsNow(position)) return 1;
  if (position.moves == rows_ * columns_) return 0;
  if (Negamax(position, 0, 1, budget) >= 1) return 1;
  return Negamax(position, -1, 0, budget) >= 0 ? 0 : -1;
}

ConnectFourSolver::Position ConnectFourSolver::Replay(const std::vector<int>& moves) const {
  Position position;
  for (size_t i = 0; i < moves.size(); ++i) {
    const int column = moves[i];
    if (column < 0 || column >= columns_ || (Playable(position) & ColumnMask(column)) == 0) {
      throw std::invalid_argument("move " + std::to_string(i) + " (column " +
                                  std::to_string(column) + ") is not legal");
    }
    if (Aligned(position.current ^ position.mask, rows_)) {
      throw std::invalid_argument("the game is over before move " + std::to_string(i));
    }
    position = Played(position, Playable(position) & ColumnMask(column));
  }
  if (Aligned(position.current ^ position.mask, rows_) || position.moves == rows_ * columns_) {
    throw std::invalid_argument("the game is over: there is no player to move");
  }
  return position;
}

int ConnectFourSolver::Solve(const std::vector<int>& moves, Budget& budget) {
  return Value(Replay(moves), budget);
}

std::vector<int> ConnectFourSolver::MoveValues(const std::vector<int>& moves, Budget& budget) {
  const Position position = Replay(moves);
  std::vector<int> values(columns_, kFull);
  const uint64_t playable = Playable(position);
  for (int column = 0; column < columns_; ++column) {
    const uint64_t move = playable & ColumnMask(column);
    if (move == 0) continue;
    const Position child = Played(position, move);
    if (Aligned(child.current ^ child.mask, rows_)) {
      values[column] = 1;
    } else if (child.moves == rows_ * columns_) {
      values[column] = 0;
    } else {
      values[column] = -Value(child, budget);
    }
  }
  return values;
}

}  // namespace spiel_bounded
