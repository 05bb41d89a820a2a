#include "keys.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "open_spiel/games/amazons/amazons.h"

namespace spiel_bounded {
namespace {

constexpr int kCheckersNoCaptureLimit = 40;  // kMaxMovesWithoutCapture in checkers.h
constexpr open_spiel::Action kPigRoll = 0;   // kRoll in pig.h

uint64_t RotateLeft(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

uint64_t Finalize(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

}  // namespace

Key Hash128(const char* data, size_t size) {
  constexpr uint64_t kC1 = 0x87c37b91114253d5ULL;
  constexpr uint64_t kC2 = 0x4cf5ad432745937fULL;
  uint64_t h1 = 0x9e3779b97f4a7c15ULL;
  uint64_t h2 = 0x6a09e667f3bcc909ULL;
  size_t offset = 0;
  for (; offset + 16 <= size; offset += 16) {
    uint64_t k1, k2;
    std::memcpy(&k1, data + offset, 8);
    std::memcpy(&k2, data + offset + 8, 8);
    h1 ^= RotateLeft(k1 * kC1, 31) * kC2;
    h1 = (RotateLeft(h1, 27) + h2) * 5 + 0x52dce729;
    h2 ^= RotateLeft(k2 * kC2, 33) * kC1;
    h2 = (RotateLeft(h2, 31) + h1) * 5 + 0x38495ab5;
  }
  uint64_t tail[2] = {0, 0};
  std::memcpy(tail, data + offset, size - offset);
  h1 ^= RotateLeft(tail[0] * kC1, 31) * kC2;
  h2 ^= RotateLeft(tail[1] * kC2, 33) * kC1;
  h1 ^= size;
  h2 ^= size;
  h1 += h2;
  h2 += h1;
  h1 = Finalize(h1);
  h2 = Finalize(h2);
  h1 += h2;
  h2 += h1;
  return Key{h1, h2};
}

KeyKind ParseKeyKind(const std::string& name) {
  if (name == "string") return KeyKind::kString;
  if (name == "string_move") return KeyKind::kStringMove;
  if (name == "amazons") return KeyKind::kAmazons;
  if (name == "checkers") return KeyKind::kCheckers;
  if (name == "pig") return KeyKind::kPig;
  if (name == "chance_count") return KeyKind::kChanceCount;
  if (name == "history") return KeyKind::kHistory;
  throw std::invalid_argument("unknown key kind '" + name +
                              "'; accepted: string, string_move, amazons, checkers, pig, "
                              "chance_count, history");
}

KeyFunction::KeyFunction(const open_spiel::State& root, KeyKind kind)
    : kind_(kind),
      text_(root),
      amazons_(dynamic_cast<const open_spiel::amazons::AmazonsState*>(&root) != nullptr) {}

void KeyFunction::Text(const open_spiel::State& state) const {
  // connect_four's board as its stones (cheaper than its text, and equal exactly when the text
  // is), marked by a length no text has.
  uint64_t stones[2];
  if (text_.Stones(state, stones)) {
    Int(-1);
    Int(static_cast<int64_t>(stones[0]));
    Int(static_cast<int64_t>(stones[1]));
    return;
  }
  // amazons' text is its board, one character a cell: the cells, two bits each, marked by
  // another length no text has (the cast only where the root is amazons': off other games'
  // hot path).
  const auto* amazons =
      amazons_ ? dynamic_cast<const open_spiel::amazons::AmazonsState*>(&state) : nullptr;
  if (amazons != nullptr) {
    Int(-2);
    uint64_t word = 0;
    int bits = 0;
    for (int cell = 0; cell < amazons->NumCells(); ++cell) {
      word |= static_cast<uint64_t>(amazons->BoardAt(cell)) << bits;
      bits += 2;
      if (bits == 64) {
        Int(static_cast<int64_t>(word));
        word = 0;
        bits = 0;
      }
    }
    if (bits > 0) Int(static_cast<int64_t>(word));
    return;
  }
  // Written with its length, so that different parts never read alike.
  text_.Write(state, text_buffer_);
  Int(static_cast<int64_t>(text_buffer_.size()));
  bytes_ += text_buffer_;
}

Key KeyFunction::operator()(const open_spiel::State& state) const {
  bytes_.clear();
  if (kind_ == KeyKind::kHistory) {
    for (open_spiel::Action action : state.History()) Int(action);
    return Hash128(bytes_.data(), bytes_.size());
  }
  Int(state.CurrentPlayer());
  Text(state);
  switch (kind_) {
    case KeyKind::kStringMove:
      Int(state.MoveNumber());
      break;
    case KeyKind::kAmazons: {
      const int phase = state.MoveNumber() % 3;
      if (phase != 0) {
        Int(phase);
        Int(state.FullHistory().back().action);  // by reference: `History` would copy it
      }
      break;
    }
    case KeyKind::kCheckers: {
      const std::vector<open_spiel::Action> history = state.History();
      int counter = 0;
      for (auto action = history.rbegin(); action != history.rend(); ++action) {
        if ((*action & 1) != 0 || counter >= kCheckersNoCaptureLimit) break;
        ++counter;
      }
      Int(counter);
      const bool last = counter == 0 && !history.empty();
      Int(last ? 1 : 0);
      if (last) Int(history.back());
      break;
    }
    case KeyKind::kPig: {
      int64_t decisions = 0;
      bool decision_next = true;  // the initial state is player 0's decision
      for (open_spiel::Action action : state.History()) {
        if (decision_next) {
          ++decisions;
          decision_next = action != kPigRoll;
        } else {
          decision_next = true;
        }
      }
      Int(decisions);
      break;
    }
    case KeyKind::kChanceCount: {
      int64_t rolls = 0;
      for (const auto& step : state.FullHistory()) {
        rolls += step.player == open_spiel::kChancePlayerId;
      }
      Int(rolls);
      break;
    }
    default:  // kString: the player and the text
      break;
  }
  return Hash128(bytes_.data(), bytes_.size());
}

}  // namespace spiel_bounded
