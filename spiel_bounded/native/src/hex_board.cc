#include "hex_board.h"

#include <algorithm>
#include <utility>

namespace spiel_bounded {
namespace {

constexpr int kEmptyPlane = 4;  // the plane of `CellState::kEmpty` (0)

}  // namespace

HexBoard::HexBoard(std::shared_ptr<const open_spiel::Game> game, int size, bool swap,
                   bool explicit_text, bool plain_observation)
    : Twin(std::move(game)),
      size_(size),
      cells_(size * size),
      swap_(swap),
      explicit_text_(explicit_text),
      plain_observation_(plain_observation) {
  board_ = AllCells(cells_);
  for (int k = 0; k < size; ++k) {
    first_row_ |= uint64_t{1} << k;
    last_row_ |= uint64_t{1} << ((size - 1) * size + k);
    first_column_ |= uint64_t{1} << (k * size);
    last_column_ |= uint64_t{1} << (k * size + size - 1);
  }
}

std::unique_ptr<HexBoard> HexBoard::From(const open_spiel::State& state) {
  const std::shared_ptr<const open_spiel::Game> game = state.GetGame();
  if (game->GetType().short_name != "hex") return nullptr;
  // The board's sides from the observation's shape (planes, columns, rows): `num_cols` and
  // `num_rows` default to `board_size`, which the parameters do not say.
  const std::vector<int> shape = game->ObservationTensorShape();
  if (shape.size() != 3 || shape[1] != shape[2]) return nullptr;
  const int size = shape[1];
  if (size < 1 || size * size > kMaxCells) return nullptr;
  const open_spiel::GameParameters params = game->GetParameters();
  const auto flag = [&params](const char* name) {
    const auto found = params.find(name);
    return found != params.end() && found->second.bool_value();
  };
  const auto rep = params.find("string_rep");
  const bool explicit_text = rep != params.end() && rep->second.string_value() == "explicit";
  return Replayed(
      std::make_unique<HexBoard>(game, size, flag("swap"), explicit_text, flag("plain_obs_tensor")),
      state);
}

uint64_t HexBoard::Neighbours(uint64_t cells) const {
  // A cell's neighbours: north, north-east, east, south, south-west, west.
  const uint64_t eastward = cells & ~last_column_, westward = cells & ~first_column_;
  const uint64_t near = (cells >> size_) | (eastward >> (size_ - 1)) | (eastward << 1) |
                        (cells << size_) | (westward << (size_ - 1)) | (westward >> 1);
  return near & board_;
}

HexBoard::Stone HexBoard::StoneFor(int player, int cell) const {
  // As OpenSpiel: the edge the cell lies on (the first one where both do), or a neighbour's.
  const uint64_t bit = uint64_t{1} << cell;
  const uint64_t first_side = player == 0 ? first_row_ : first_column_;
  const uint64_t second_side = player == 0 ? last_row_ : last_column_;
  const bool on_first = (bit & first_side) != 0;
  const uint64_t near = Neighbours(bit);
  const bool first = on_first || (near & now_.first_edge[player]) != 0;
  const bool second =
      (!on_first && (bit & second_side) != 0) || (near & now_.second_edge[player]) != 0;
  if (first && second) return Stone::kWin;
  if (first) return Stone::kFirstEdge;
  if (second) return Stone::kSecondEdge;
  return Stone::kPlain;
}

HexBoard::Stone HexBoard::StoneAt(int player, int cell) const {
  const uint64_t bit = uint64_t{1} << cell;
  if ((now_.stones[player] & bit) == 0) return Stone::kNone;
  if (now_.win & bit) return Stone::kWin;
  if (now_.first_edge[player] & bit) return Stone::kFirstEdge;
  if (now_.second_edge[player] & bit) return Stone::kSecondEdge;
  return Stone::kPlain;
}

namespace {

// OpenSpiel's `CellState` value of a stone of `player` (0: empty).
int CellStateValue(int player, int stone) {
  // Stone: none, plain, first edge, second edge, win. Player 0 (black): 1, 3 (north), 2
  // (south), 4; player 1 (white): -1, -3 (west), -2 (east), -4.
  static constexpr int kBlack[] = {0, 1, 3, 2, 4};
  return player == 0 ? kBlack[stone] : -kBlack[stone];
}

char StoneText(int player, int stone, bool explicit_text) {
  if (stone == 0) return '.';
  if (!explicit_text) return player == 0 ? 'x' : 'o';
  static constexpr char kBlack[] = ".xyzX", kWhite[] = ".opqO";
  return player == 0 ? kBlack[stone] : kWhite[stone];
}

}  // namespace

char HexBoard::CellText(int cell) const {
  for (int player = 0; player < 2; ++player) {
    const Stone stone = StoneAt(player, cell);
    if (stone != Stone::kNone) return StoneText(player, static_cast<int>(stone), explicit_text_);
  }
  return '.';
}

open_spiel::Player HexBoard::CurrentPlayer() const {
  return IsTerminal() ? open_spiel::kTerminalPlayerId : now_.player;
}

std::vector<open_spiel::Action> HexBoard::LegalActions() const {
  if (IsTerminal()) return {};
  std::vector<open_spiel::Action> legal;
  legal.reserve(cells_ + 1);
  for (uint64_t empty = board_ & ~(now_.stones[0] | now_.stones[1]); empty != 0;
       empty &= empty - 1) {
    legal.push_back(__builtin_ctzll(empty));
  }
  if (swap_ && history_.size() == 1 && now_.player == 1) legal.push_back(cells_);
  return legal;
}

std::string HexBoard::ActionToString(open_spiel::Player player, open_spiel::Action move) const {
  if (swap_ && move == cells_) return "swap";
  // OpenSpiel's names: the letter counts columns, the number rows. (Its "explicit" names are
  // never reached: it compares a default-constructed `StringRep`, the standard one.)
  return static_cast<char>('a' + move % size_) + std::to_string(move / size_ + 1);
}

std::string HexBoard::ToString() const {
  // A row a line, each shifted one space further right; a space after every cell.
  std::string text;
  for (int cell = 0; cell < cells_; ++cell) {
    if (cell > 0 && cell % size_ == 0) {
      text += '\n';
      text += std::string(cell / size_, ' ');
    }
    text += CellText(cell);
    text += ' ';
  }
  return text;
}

std::vector<double> HexBoard::Returns() const {
  return {static_cast<double>(now_.result), static_cast<double>(-now_.result)};
}

std::string HexBoard::InformationStateString(open_spiel::Player player) const {
  return HistoryString();
}

int HexBoard::PlainPlane(int cell) const {
  if ((now_.stones[0] >> cell) & 1) return 0;
  if ((now_.stones[1] >> cell) & 1) return 1;
  return 2;
}

void HexBoard::ObservationTensor(open_spiel::Player player, absl::Span<float> values) const {
  // Planes: OpenSpiel's nine cell states from -4, or (plain) black, white, empty.
  std::fill(values.begin(), values.end(), 0.0f);
  for (int cell = 0; cell < cells_; ++cell) {
    int plane = kEmptyPlane;
    for (int owner = 0; owner < 2; ++owner) {
      const Stone stone = StoneAt(owner, cell);
      if (stone != Stone::kNone) plane += CellStateValue(owner, static_cast<int>(stone));
    }
    values[(plain_observation_ ? PlainPlane(cell) : plane) * cells_ + cell] = 1.0f;
  }
}

std::unique_ptr<open_spiel::State> HexBoard::Clone() const {
  return std::make_unique<HexBoard>(*this);
}

void HexBoard::DoApplyAction(open_spiel::Action move) {
  before_.push_back(now_);
  const int mover = now_.player;
  if (swap_ && move == cells_) {
    // The pie rule: the first stone becomes the second player's, mirrored on the diagonal.
    const int first = static_cast<int>(history_.front().action);
    const int mirrored = (first % size_) * size_ + first / size_;
    now_ = Position{};
    const Stone stone = StoneFor(1, mirrored);
    now_.stones[1] = uint64_t{1} << mirrored;
    if (stone == Stone::kFirstEdge) now_.first_edge[1] = now_.stones[1];
    if (stone == Stone::kSecondEdge) now_.second_edge[1] = now_.stones[1];
    now_.player = 0;
    return;
  }
  const int cell = static_cast<int>(move);
  const uint64_t bit = uint64_t{1} << cell;
  const Stone stone = StoneFor(mover, cell);
  now_.stones[mover] |= bit;
  if (stone == Stone::kWin) {
    now_.win = bit;
    now_.result = mover == 0 ? 1 : -1;
  } else if (stone != Stone::kPlain) {
    // The stone's plain neighbours, and theirs, take its edge (OpenSpiel's flood fill).
    const uint64_t plain = now_.stones[mover] & ~now_.first_edge[mover] & ~now_.second_edge[mover];
    uint64_t group = bit;
    for (uint64_t grown = bit; grown != 0;) {
      grown = Neighbours(group) & plain & ~group;
      group |= grown;
    }
    (stone == Stone::kFirstEdge ? now_.first_edge : now_.second_edge)[mover] |= group;
  }
  now_.player = 1 - mover;
}

void HexBoard::UndoAction(open_spiel::Player player, open_spiel::Action move) {
  now_ = before_.back();
  before_.pop_back();
  ForgetLastMove();
}

}  // namespace spiel_bounded
