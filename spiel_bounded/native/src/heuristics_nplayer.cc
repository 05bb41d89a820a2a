// The n-player heuristics: the C++ twins of `ChineseCheckersScorer`, `MaednScorer` and
// `YachtScorer` in spiel_bounded/evaluators/heuristics_nplayer.py, with the same float
// operations in the same order (Python 3.11's `sum` adds left to right), so the values are
// equal to the last bit (tests/test_native_evaluators.py). Every player's value comes from one
// pass (`Values`): the n-player searches ask for all of them at once.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "heuristics_games.h"

namespace spiel_bounded {
namespace {

constexpr double kCcSharpness = 6.0;         // CC_SHARPNESS
constexpr double kMaednSharpness = 6.0;      // MAEDN_SHARPNESS
constexpr double kMaednHitChance = 1.0 / 6;  // MAEDN_HIT_CHANCE
constexpr double kFloor = 0.05;              // FLOOR
constexpr double kYachtExpected[] = {2.0,  5.0,  8.0,  11.0, 14.0, 17.0,
                                     22.0, 10.0, 12.0, 12.0, 12.0, 12.0};  // YACHT_EXPECTED
constexpr double kYachtSpread = 8.0;                                       // YACHT_SPREAD
const char* const kYachtLabels[] = {"Ones",   "Twos",  "Threes", "Fours", "Fives", "Sixes",
                                    "Chance", "4Kind", "Full",   "SmStr", "LgStr", "Yacht"};
constexpr int kMaednTrack = 40;
constexpr int kMaednGoalFields = 4;
constexpr int kMaednMaxPlayers = 4;
constexpr int kMaednFinished = 41 + 42 + 43 + 44;
constexpr int kRows = 17;

// `expected_returns`: the values of softmax(strengths) chances mixed with FLOOR of the uniform,
// in place of `strengths`.
void ExpectedReturns(std::vector<double>& values, double win, double lose) {
  const int n = static_cast<int>(values.size());
  double top = values[0];
  for (int p = 1; p < n; ++p) top = std::max(top, values[p]);
  double total = 0.0;
  for (int p = 0; p < n; ++p) {
    values[p] = std::exp(values[p] - top);
    total += values[p];
  }
  for (int p = 0; p < n; ++p) {
    const double chance = (1 - kFloor) * values[p] / total + kFloor / n;
    values[p] = lose + chance * (win - lose);
  }
  double rest = 0.0;
  for (int p = 0; p + 1 < n; ++p) rest += values[p];
  values[n - 1] = -rest;
}

// A cell of the star: (row, character column) in `str(state)`.
struct Cell {
  int row, column;
  char piece;
};

// `_cells`: the non-space characters of the first 17 lines, row by row.
std::vector<Cell> Cells(const std::string& text) {
  std::vector<Cell> cells;
  int row = 0, column = 0;
  for (const char c : text) {
    if (row >= kRows) break;
    if (c == '\n') {
      ++row;
      column = 0;
      continue;
    }
    if (c != ' ') cells.push_back({row, column, c});
    ++column;
  }
  return cells;
}

int Distance(int row_a, int column_a, int row_b, int column_b) {
  const int rows = std::abs(row_a - row_b), columns = std::abs(column_a - column_b);
  return rows + std::max(0, (columns - rows) / 2);  // floor or truncation: both clamp to 0
}

class ChineseCheckersHeuristic final : public Evaluator {
 public:
  explicit ChineseCheckersHeuristic(const open_spiel::Game& game) : players_(game.NumPlayers()) {
    const std::vector<Cell> start = Cells(game.NewInitialState()->ToString());
    if (start.size() != 121) {
      throw std::invalid_argument(
          "the chinese_checkers heuristic does not understand how this OpenSpiel version prints "
          "the board (" +
          std::to_string(start.size()) + " cells, expected 121)");
    }
    const int centre_row = (kRows - 1) / 2;
    int column_sum = 0;
    for (const Cell& cell : start) column_sum += cell.column;
    const int centre_column = column_sum / static_cast<int>(start.size());
    for (int player = 0; player < players_; ++player) {
      std::vector<std::pair<int, int>> home, target;
      for (const Cell& cell : start) {
        if (cell.piece == '1' + player) {
          home.emplace_back(cell.row, cell.column);
          target.emplace_back(2 * centre_row - cell.row, 2 * centre_column - cell.column);
        }
      }
      if (target.empty()) {
        throw std::invalid_argument("the chinese_checkers heuristic finds no pegs of player " +
                                    std::to_string(player) + " on the initial board");
      }
      std::pair<int, int> tip = target[0];  // Python's max: the first farthest cell
      int far = -1;
      for (const auto& [row, column] : target) {
        const int d = Distance(row, column, centre_row, centre_column);
        if (d > far) {
          far = d;
          tip = {row, column};
        }
      }
      int start_sum = 0, done_sum = 0;
      for (const auto& [row, column] : home)
        start_sum += Distance(row, column, tip.first, tip.second);
      for (const auto& [row, column] : target) {
        done_sum += Distance(row, column, tip.first, tip.second);
      }
      tips_.push_back(tip);
      start_.push_back(start_sum);
      done_.push_back(done_sum);
    }
  }

  double Value(const open_spiel::State& state, int player) override {
    Values(state, buffer_);
    return buffer_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const std::string text = state.ToString();
    distance_.assign(players_, 0);
    int row = 0, column = 0;
    for (const char c : text) {
      if (row >= kRows) break;
      if (c == '\n') {
        ++row;
        column = 0;
        continue;
      }
      if (c >= '0' && c <= '9') {
        const int player = c - '1';
        if (player < 0 || player >= players_) {
          throw std::invalid_argument("the chinese_checkers heuristic cannot read " + PyRepr(text));
        }
        distance_[player] += Distance(row, column, tips_[player].first, tips_[player].second);
      }
      ++column;
    }
    out.resize(players_);
    for (int p = 0; p < players_; ++p) {
      const double progress =
          static_cast<double>(start_[p] - distance_[p]) / static_cast<double>(start_[p] - done_[p]);
      out[p] = kCcSharpness * progress;
    }
    ExpectedReturns(out, players_ - 1.0, -1.0);
  }

  std::string name() const override { return "heuristic"; }

 private:
  int players_;
  std::vector<std::pair<int, int>> tips_;
  std::vector<int> start_, done_;
  std::vector<int> distance_;
  std::vector<double> buffer_;
};

class MaednHeuristic final : public Evaluator {
 public:
  explicit MaednHeuristic(const open_spiel::Game& game) : players_(game.NumPlayers()) {
    const int size = game.ObservationTensorSize();
    if (size < kOutStart + kMaednMaxPlayers) {
      throw std::invalid_argument(
          "the maedn heuristic does not understand this OpenSpiel version's observation tensor "
          "(" +
          std::to_string(size) + " values)");
    }
    tensor_.resize(size);
  }

  double Value(const open_spiel::State& state, int player) override {
    Values(state, buffer_);
    return buffer_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const int n = players_;
    out.resize(n);
    for (int player = 0; player < n; ++player) {
      state.ObservationTensor(player, absl::MakeSpan(tensor_));
      // The track is 40 fields of 4 entries, one per (possible) player, in `player`'s frame.
      double opponents[kMaednTrack];
      for (int field = 0; field < kMaednTrack; ++field) {
        const float* entries = &tensor_[4 * field];
        double sum = 0.0;  // numpy's row sum of float64 entries, left to right
        bool first = true;
        for (int q = 0; q < n; ++q) {
          if (q == player) continue;
          sum = first ? static_cast<double>(entries[q]) : sum + static_cast<double>(entries[q]);
          first = false;
        }
        opponents[field] = sum;
      }
      long long own_sum = 0;
      for (int field = 0; field < kMaednTrack; ++field) {
        if (tensor_[4 * field + player] != 0.0f) own_sum += field + 1;
      }
      double total = static_cast<double>(own_sum);
      for (int field = 0; field < kMaednTrack; ++field) {
        if (tensor_[4 * field + player] == 0.0f) continue;
        double behind = 0.0;
        for (int step = 1; step < 7; ++step) {
          behind += opponents[(field - step + kMaednTrack) % kMaednTrack];
        }
        total -= (field + 1) * std::min(1.0, kMaednHitChance * behind);
      }
      long long goal_sum = 0;
      for (int g = 0; g < kMaednGoalFields; ++g) {
        if (tensor_[kGoalStart + 4 * g + player] != 0.0f) goal_sum += 41 + g;
      }
      total += static_cast<double>(goal_sum);
      out[player] = kMaednSharpness * (total / kMaednFinished);
    }
    ExpectedReturns(out, n - 1.0, -1.0);
  }

  std::string name() const override { return "heuristic"; }

 private:
  static constexpr int kGoalStart = 4 * kMaednTrack;
  static constexpr int kOutStart = kGoalStart + 4 * kMaednGoalFields * kMaednMaxPlayers;
  int players_;
  std::vector<float> tensor_;
  std::vector<double> buffer_;
};

// Python's `str.strip()` for the ASCII text OpenSpiel prints.
std::string Strip(const std::string& text) {
  const char* space = " \t\n\r\v\f";
  const size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

class YachtHeuristic final : public Evaluator {
 public:
  explicit YachtHeuristic(const open_spiel::Game& game) : players_(game.NumPlayers()) {}

  static bool Supports(const open_spiel::Game& game) {
    const open_spiel::GameParameters params = game.GetParameters();
    auto is = [&params](const char* name, int value) {
      const auto found = params.find(name);
      return found != params.end() &&
             found->second.type() == open_spiel::GameParameter::Type::kInt &&
             found->second.int_value() == value;
    };
    return is("num_dice", 5) && is("dice_sides", 6);
  }

  double Value(const open_spiel::State& state, int player) override {
    Values(state, buffer_);
    return buffer_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const std::string text = state.ToString();
    out.clear();
    int left = 0;
    const std::string marker = "\nPlayer ";
    size_t at = text.find(marker);
    while (at != std::string::npos) {
      const size_t begin = at + marker.size();
      const size_t next = text.find(marker, begin);
      const std::string block =
          Strip(text.substr(begin, next == std::string::npos ? std::string::npos : next - begin));
      at = next;
      // header, *lines = block.split("\n")
      const size_t header_end = block.find('\n');
      const std::string header = block.substr(0, header_end);
      const size_t total_at = header.find("total: ");
      if (total_at == std::string::npos) {
        throw std::invalid_argument("the yacht heuristic cannot read this state: " + PyRepr(text));
      }
      std::string number = header.substr(total_at + 7);
      const size_t cut = number.find("total: ");  // Python keeps the second field only
      if (cut != std::string::npos) number.resize(cut);
      while (!number.empty() && (number.back() == ')' || number.back() == ':')) number.pop_back();
      char* end = nullptr;
      const double total = std::strtod(number.c_str(), &end);
      if (number.empty() || *end != '\0') {
        throw std::invalid_argument("the yacht heuristic cannot read this state: " + PyRepr(text));
      }
      bool filled[12] = {};
      size_t line_at = header_end;
      while (line_at != std::string::npos) {
        const size_t line_end = block.find('\n', line_at + 1);
        const std::string line =
            block.substr(line_at + 1, line_end == std::string::npos ? std::string::npos
                                                                    : line_end - line_at - 1);
        line_at = line_end;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string label = Strip(line.substr(0, colon));
        for (int k = 0; k < 12; ++k) {
          if (label == kYachtLabels[k]) filled[k] = true;
        }
      }
      double remaining = 0.0;
      bool first = true;
      for (int k = 0; k < 12; ++k) {
        if (filled[k]) continue;
        remaining = first ? kYachtExpected[k] : remaining + kYachtExpected[k];
        first = false;
        ++left;
      }
      out.push_back(first ? total + 0 : total + remaining);
    }
    const int n = players_;
    if (static_cast<int>(out.size()) != n) {
      throw std::invalid_argument("the yacht heuristic cannot read this state: " + PyRepr(text));
    }
    const double spread = kYachtSpread * std::sqrt(1.0 + static_cast<double>(left) / n);
    for (double& score : out) score = score / spread;
    ExpectedReturns(out, 1.0, -1.0 / (n - 1));
  }

  std::string name() const override { return "heuristic"; }

 private:
  int players_;
  std::vector<double> buffer_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeNPlayerHeuristic(const open_spiel::Game& game) {
  const std::string short_name = game.GetType().short_name;
  if (short_name == "chinese_checkers") return std::make_unique<ChineseCheckersHeuristic>(game);
  if (short_name == "maedn") return std::make_unique<MaednHeuristic>(game);
  if (short_name == "yacht" && YachtHeuristic::Supports(game)) {
    return std::make_unique<YachtHeuristic>(game);
  }
  return nullptr;
}

}  // namespace spiel_bounded
