#include "clobber_solver.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>

namespace spiel_bounded {
namespace {

uint64_t Hash(uint64_t own, uint64_t other) {
  uint64_t hash = own * 0x9E3779B97F4A7C15ULL;
  hash ^= (other * 0xC2B2AE3D27D4EB4FULL) >> 7 | (other * 0xC2B2AE3D27D4EB4FULL) << 57;
  hash ^= hash >> 29;
  return hash * 0xBF58476D1CE4E5B9ULL;
}

// The geometry of a board the solver takes (its shifts need fewer than 64 columns).
ClobberGeometry CheckedGeometry(int rows, int columns) {
  if (rows < 1 || columns < 1 || columns >= 64 || rows > 64 || rows * columns > 64) {
    throw std::invalid_argument(
        "the clobber solver needs a board of rows * columns <= 64 cells with fewer than 64 "
        "columns, got " +
        std::to_string(rows) + " x " + std::to_string(columns));
  }
  return ClobberGeometry(rows, columns);
}

}  // namespace

ClobberSolver::ClobberSolver(int rows, int columns, int table_bits)
    : geometry_(CheckedGeometry(rows, columns)) {
  if (table_bits < 2 || table_bits > 30) {
    throw std::invalid_argument("table_bits must be in [2, 30], got " + std::to_string(table_bits));
  }
  board_ = rows * columns == 64 ? ~uint64_t{0} : (uint64_t{1} << (rows * columns)) - 1;
  table_.resize(size_t{1} << table_bits);
  shift_ = 64 - table_bits;
}

// The cells next to `cells`: those that would capture onto them, were every cell a piece.
uint64_t ClobberSolver::Neighbours(uint64_t cells) const {
  uint64_t neighbours = 0;
  for (const uint64_t beside : Capturers(Position{board_, cells})) neighbours |= beside;
  return neighbours;
}

ClobberSolver::Position ClobberSolver::Live(const Position& position) const {
  const uint64_t occupied = position.own | position.other;
  // The pieces next to an opponent's, then every piece connected to one of them.
  uint64_t live =
      (Neighbours(position.own) & position.other) | (Neighbours(position.other) & position.own);
  for (uint64_t grown = live;; live = grown) {
    grown = live | (Neighbours(live) & occupied);
    if (grown == live) break;
  }
  return Position{position.own & live, position.other & live};
}

int ClobberSolver::Mobility(const Position& position) const {
  const std::array<uint64_t, kDirections> capturers = Capturers(position);
  int count = 0;
  for (const uint64_t pieces : capturers) count += __builtin_popcountll(pieces);
  return count;
}

ClobberSolver::Position ClobberSolver::Played(const Position& position, uint64_t from,
                                              uint64_t to) const {
  return Live(Position{position.other & ~to, (position.own & ~from) | to});
}

ClobberSolver::Entry* ClobberSolver::Find(const Position& position) {
  const size_t bucket = (Hash(position.own, position.other) >> shift_) & ~size_t{1};
  for (size_t slot = bucket; slot < bucket + 2; ++slot) {
    Entry& entry = table_[slot];
    if (entry.own == position.own && entry.other == position.other) return &entry;
  }
  return nullptr;
}

void ClobberSolver::Store(const Position& position, bool wins, int64_t work) {
  const size_t bucket = (Hash(position.own, position.other) >> shift_) & ~size_t{1};
  Entry* target = &table_[bucket];
  Entry& second = table_[bucket + 1];
  if (second.own == position.own && second.other == position.other) {
    target = &second;
  } else if (!(target->own == position.own && target->other == position.other) &&
             second.work < target->work) {
    target = &second;
  }
  const int64_t cap = std::numeric_limits<uint32_t>::max();
  *target = Entry{position.own, position.other, static_cast<uint32_t>(std::min(work, cap)),
                  static_cast<int8_t>(wins ? 1 : -1)};
}

int ClobberSolver::Children(const Position& position,
                            std::array<std::pair<int64_t, Position>, kMaxMoves>& out, bool& wins) {
  const std::array<uint64_t, kDirections> capturers = Capturers(position);
  std::array<int, kMaxMoves> scores;
  int count = 0;
  wins = false;
  for (int direction = 0; direction < kDirections; ++direction) {
    for (uint64_t pieces = capturers[direction]; pieces != 0; pieces &= pieces - 1) {
      const int from = __builtin_ctzll(pieces);
      const int64_t move = int64_t{from} * kDirections + direction;
      const Position child =
          Played(position, uint64_t{1} << from, uint64_t{1} << geometry_.Target(from, direction));
      const Entry* known = (child.own | child.other) == 0 ? nullptr : Find(child);
      if ((child.own | child.other) == 0 || (known != nullptr && known->value < 0)) {
        wins = true;  // the last capture, or a child known lost: it alone is returned
        out[0] = {move, child};
        return 1;
      }
      const int score = known != nullptr ? kMaxMoves : Mobility(child);  // known won: last
      int at = count++;
      for (; at > 0 && scores[at - 1] > score; --at) {  // the fewest replies first
        out[at] = out[at - 1];
        scores[at] = scores[at - 1];
      }
      out[at] = {move, child};
      scores[at] = score;
    }
  }
  return count;
}

// Whether the player to move in `position` (live pieces only, a capture left) wins.
bool ClobberSolver::Wins(const Position& position, Budget& budget) {
  budget.Tick();
  ++nodes_;
  if (const Entry* entry = Find(position)) return entry->value > 0;
  const int64_t before = nodes_;
  std::array<std::pair<int64_t, Position>, kMaxMoves> children;
  bool wins = false;
  const int count = Children(position, children, wins);
  for (int i = 0; i < count && !wins; ++i) wins = !Wins(children[i].second, budget);
  Store(position, wins, nodes_ - before);
  return wins;
}

ClobberSolver::Position ClobberSolver::Replay(const std::vector<int64_t>& moves) const {
  const std::array<uint64_t, 2> start = geometry_.Checkerboard();
  Position position{start[0], start[1]};  // player 0 moves first
  for (size_t i = 0; i <= moves.size(); ++i) {
    const std::array<uint64_t, kDirections> capturers = Capturers(position);
    if ((capturers[0] | capturers[1] | capturers[2] | capturers[3]) == 0) {
      throw std::invalid_argument(i == moves.size()
                                      ? "the game is over: there is no player to move"
                                      : "the game is over before move " + std::to_string(i));
    }
    if (i == moves.size()) break;
    const int64_t move = moves[i];
    const int64_t from = move / kDirections;
    const int direction = static_cast<int>(move % kDirections);
    if (move < 0 || from >= geometry_.rows() * geometry_.columns() ||
        ((capturers[direction] >> from) & 1) == 0) {
      throw std::invalid_argument("move " + std::to_string(i) + " (action " + std::to_string(move) +
                                  ") is not legal");
    }
    const uint64_t to = uint64_t{1} << geometry_.Target(static_cast<int>(from), direction);
    position = Position{position.other & ~to, (position.own & ~(uint64_t{1} << from)) | to};
  }
  return Live(position);
}

int ClobberSolver::Solve(const std::vector<int64_t>& moves, Budget& budget) {
  return Wins(Replay(moves), budget) ? 1 : -1;
}

std::pair<int64_t, int> ClobberSolver::BestMove(const std::vector<int64_t>& moves, Budget& budget) {
  std::array<std::pair<int64_t, Position>, kMaxMoves> children;
  bool wins = false;
  const int count = Children(Replay(moves), children, wins);
  if (wins) return {children[0].first, 1};
  std::pair<int64_t, int64_t> hardest = {children[0].first, -1};  // (move, positions to prove)
  for (int i = 0; i < count; ++i) {
    const int64_t before = nodes_;
    if (!Wins(children[i].second, budget)) return {children[i].first, 1};
    const Entry* entry = Find(children[i].second);  // its work when it was proved, if kept
    const int64_t work = entry != nullptr ? int64_t{entry->work} : nodes_ - before;
    if (work > hardest.second) hardest = {children[i].first, work};
  }
  return {hardest.first, -1};
}

std::vector<std::pair<int64_t, int>> ClobberSolver::MoveValues(const std::vector<int64_t>& moves,
                                                               Budget& budget) {
  const Position position = Replay(moves);
  const std::array<uint64_t, kDirections> capturers = Capturers(position);
  std::vector<std::pair<int64_t, int>> values;
  const uint64_t pieces = capturers[0] | capturers[1] | capturers[2] | capturers[3];
  for (uint64_t left = pieces; left != 0; left &= left - 1) {  // OpenSpiel's order
    const int from = __builtin_ctzll(left);
    for (int direction = 0; direction < kDirections; ++direction) {
      if (((capturers[direction] >> from) & 1) == 0) continue;
      const Position child =
          Played(position, uint64_t{1} << from, uint64_t{1} << geometry_.Target(from, direction));
      const bool wins = (child.own | child.other) == 0 || !Wins(child, budget);
      values.emplace_back(int64_t{from} * kDirections + direction, wins ? 1 : -1);
    }
  }
  return values;
}

}  // namespace spiel_bounded
