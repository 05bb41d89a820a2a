// The heuristics of backgammon and pig: the C++ twins of `BackgammonScorer` and `PigScorer` in
// spiel_bounded/evaluators/heuristics_chance.py. Both read `state.ToString()` as Python reads
// `str(state)` and compute with the same float operations in the same order, so the values are
// equal to the last bit (tests/test_native_evaluators.py). Chance nodes are valued too.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "heuristics_games.h"

namespace spiel_bounded {
namespace {

constexpr double kConfidence = 0.95;  // _CONFIDENCE
constexpr double kPhiSlope = 1.702;   // _PHI_SLOPE

// ----------------------------------------------------------------------------- backgammon

// The constants of heuristics_chance.py, under their Python names.
constexpr double kMeanRoll = 49.0 / 6;             // BACKGAMMON_MEAN_ROLL
constexpr double kRaceVariance = 2.262;            // BACKGAMMON_RACE_VARIANCE
constexpr double kRaceOffset = 16.0;               // BACKGAMMON_RACE_OFFSET
constexpr double kContactVariance = 400.0;         // BACKGAMMON_CONTACT_VARIANCE
constexpr double kWastage = 1.0;                   // BACKGAMMON_WASTAGE
constexpr double kOnRoll = 4.0;                    // BACKGAMMON_ON_ROLL
constexpr double kDirectShot = 11.0 / 36;          // BACKGAMMON_DIRECT_SHOT
constexpr double kIndirectShot = 5.0 / 36;         // BACKGAMMON_INDIRECT_SHOT
constexpr int kHitTempo = 4;                       // BACKGAMMON_HIT_TEMPO
constexpr double kOwnRisk = 0.35;                  // BACKGAMMON_OWN_RISK
constexpr double kBlock = 2.0;                     // BACKGAMMON_BLOCK
constexpr double kPrime = 2.0;                     // BACKGAMMON_PRIME
constexpr double kGammonMargin = 3.0;              // BACKGAMMON_GAMMON_MARGIN
constexpr int kPoints = 24;                        // _BG_POINTS
constexpr int kLine = 16;                          // _BG_LINE
constexpr size_t kBoard = 13 * kLine;              // _BG_BOARD
constexpr uint64_t kPointsMask = (1u << 24) - 1;   // _POINTS_MASK
constexpr uint64_t kXHome = uint64_t{0x3F} << 18;  // _X_HOME
constexpr uint64_t kOHome = 0x3F;                  // _O_HOME
constexpr char kTail[] =
    "Turn: *\nPrevious player: -1\nExtra turn: 0\nDice: \nBar:\nScores, X: 0, O: 0\n";

// `column`: how the board draws `count` checkers of `owner` on one point, in checker order.
std::string Column(char owner, int count, bool top) {
  if (count <= 5) return std::string(count, owner) + std::string(5 - count, '.');
  if (count <= 9) return std::to_string(count) + std::string(4, owner);
  std::string digits = "1" + std::to_string(count % 10);
  if (!top) std::swap(digits[0], digits[1]);
  return digits + std::string(3, owner);
}

// The per-point features `_point_table` packs into one integer, summed over the board.
struct Board {
  int64_t x_pips = 0, o_pips = 0, x_count = 0, o_count = 0, x_out = 0, o_out = 0;
  uint64_t x_blot = 0, x_made = 0, o_blot = 0, o_made = 0;
};

// The string indices of the five cells of `point`, in checker order (`_column_slice`).
std::vector<size_t> ColumnCells(int point) {
  std::vector<size_t> cells;
  if (point < 12) {  // bottom half, drawn from row 11 upwards, point 0 at the right
    const int col = point < 6 ? 13 - point : 12 - point;
    for (int row = 11; row > 6; --row) cells.push_back(row * kLine + col);
  } else {
    const int col = point < 18 ? point - 11 : point - 10;
    for (int row = 1; row < 6; ++row) cells.push_back(row * kLine + col);
  }
  return cells;
}

// Pips lost per checker on the bar against 0..6 closed home points (`_bar_costs`).
std::vector<double> BarCosts() {
  std::vector<double> costs;
  for (int closed = 0; closed < 7; ++closed) {
    const double blocked = std::pow(closed / 6.0, 2.0);  // Python's float ** int is pow()
    const double rolls = closed < 6 ? blocked / (1 - blocked) : 4.0;
    costs.push_back(kMeanRoll * rolls);
  }
  return costs;
}

int LongestRun(uint64_t mask) {
  int run = 0;
  while (mask) {
    mask &= mask >> 1;
    ++run;
  }
  return run;
}

int BitLength(uint64_t mask) { return mask ? 64 - __builtin_clzll(mask) : 0; }
int PopCount(uint64_t mask) { return __builtin_popcountll(mask); }

double Exposure(uint64_t blots, uint64_t direct, uint64_t indirect, const int* weights) {
  double total = 0.0;
  for (uint64_t hit = blots & direct; hit; hit &= hit - 1) {
    total += kDirectShot * weights[__builtin_ctzll(hit)];
  }
  for (uint64_t hit = blots & indirect; hit; hit &= hit - 1) {
    total += kIndirectShot * weights[__builtin_ctzll(hit)];
  }
  return total;
}

double RaceLogit(double behind, double ahead, double variance) {
  return kPhiSlope * (behind - ahead) / std::sqrt(variance);
}

class BackgammonHeuristic final : public Evaluator {
 public:
  explicit BackgammonHeuristic(const open_spiel::Game& game) : bar_cost_(BarCosts()) {
    for (int point = 0; point < kPoints; ++point) cells_[point] = ColumnCells(point);
    for (int p = 0; p < kPoints; ++p) {
      x_weights_[p] = p + 1 + kHitTempo;
      o_weights_[p] = kPoints - p + kHitTempo;
    }
    gammons_ = game.MaxUtility() > 1.0;
    const double low = game.MinUtility(), high = game.MaxUtility();
    mid_ = 0.5 * (low + high);
    half_ = 0.5 * (high - low) * kConfidence;
    // Python counts the initial state's checkers with `state.board`, which is not reachable
    // here: the printed board must show the same count for both sides, as the game's rules.
    const std::string text = game.NewInitialState()->ToString();
    const bool hyper = game.GetParameters().count("hyper_backgammon") &&
                       game.GetParameters().at("hyper_backgammon").bool_value();
    checkers_ = hyper ? 3 : 15;
    bool ok = text.size() >= kBoard && text.compare(kBoard, std::string::npos, kTail) == 0;
    if (ok) {
      try {
        const Board board = Read(text);
        ok = board.x_count == checkers_ && board.o_count == checkers_;
      } catch (const std::invalid_argument&) {
        ok = false;
      }
    }
    if (!ok) {
      throw std::invalid_argument("the backgammon heuristic does not understand how " +
                                  GameDescription(game) +
                                  " prints its initial state: " + PyRepr(text));
    }
  }

  double Value(const open_spiel::State& state, int player) override {
    const double v = kConfidence * Advantage(state.ToString());
    return player == 0 ? mid_ + v : mid_ - v;
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const double v = kConfidence * Advantage(state.ToString());
    out.assign({mid_ + v, mid_ - v});
  }

  std::string name() const override { return "heuristic"; }

 private:
  // The points of the drawing, each column looked up as Python's tables do (an unknown
  // column is Python's KeyError).
  Board Read(const std::string& text) const {
    if (text.size() < kBoard) throw std::invalid_argument("backgammon: text too short");
    Board board;
    for (int point = 0; point < kPoints; ++point) {
      char column[5];
      for (int k = 0; k < 5; ++k) column[k] = text[cells_[point][k]];
      if (column[0] == '.' && column[1] == '.' && column[2] == '.' && column[3] == '.' &&
          column[4] == '.') {
        continue;
      }
      const char owner = column[4] == '.' ? column[0] : column[4];
      int count = 0;
      const bool top = point >= 12;
      if (column[0] == owner) {
        while (count < 5 && column[count] == owner) ++count;
      } else if (column[1] >= '0' && column[1] <= '9') {
        count = 10 + (top ? column[1] : column[0]) - '0';
      } else {
        count = column[0] - '0';
      }
      if ((owner != 'x' && owner != 'o') || count < 1 || count > checkers_ ||
          Column(owner, count, top) != std::string(column, 5)) {
        throw std::invalid_argument("the backgammon heuristic cannot read point " +
                                    std::to_string(point) + " (" + PyRepr(std::string(column, 5)) +
                                    ") of " + PyRepr(text));
      }
      if (owner == 'x') {
        board.x_pips += count * (kPoints - point);
        board.x_count += count;
        board.x_out += count * std::max(0, 18 - point);
        (count == 1 ? board.x_blot : board.x_made) |= uint64_t{1} << point;
      } else {
        board.o_pips += count * (point + 1);
        board.o_count += count;
        board.o_out += count * std::max(0, point - 5);
        (count == 1 ? board.o_blot : board.o_made) |= uint64_t{1} << point;
      }
    }
    return board;
  }

  // `_advantage`: player 0's expected result in single games.
  double Advantage(const std::string& text) const {
    const Board b = Read(text);
    // turn, previous, extra, dice, bar = text[_BG_BOARD:].split("\n", 5)[:5]
    std::string lines[5];
    size_t at = kBoard;
    for (int k = 0; k < 5; ++k) {
      const size_t end = text.find('\n', at);
      if (end == std::string::npos) {
        if (k < 4) throw std::invalid_argument("backgammon: cannot read " + PyRepr(text));
        lines[k] = text.substr(at);
        break;
      }
      lines[k] = text.substr(at, end - at);
      at = end + 1;
    }
    const std::string &turn = lines[0], &previous = lines[1], &extra = lines[2], &dice = lines[3],
                      &bar = lines[4];
    const int64_t bar_x = std::count(bar.begin(), bar.end(), 'x');
    const int64_t bar_o = std::count(bar.begin(), bar.end(), 'o');
    double x_eff = static_cast<double>(b.x_pips + 25 * bar_x) + kWastage * (b.x_count + bar_x);
    double o_eff = static_cast<double>(b.o_pips + 25 * bar_o) + kWastage * (b.o_count + bar_o);
    if (turn.size() < 7) throw std::invalid_argument("backgammon: cannot read " + PyRepr(text));
    int mover = -1;
    const char mover_char = turn[6];
    if (mover_char == 'x' || mover_char == 'o') {
      mover = mover_char == 'x' ? 0 : 1;
      double tempo = kMeanRoll;
      auto digit = [](char c) { return c >= '0' && c <= '9'; };
      if (dice.size() == 8 && digit(dice[6]) && digit(dice[7])) {
        const int first = dice[6] - '0', second = dice[7] - '0';
        if (first != second) {
          tempo = first + second;
        } else {  // doubles: two actions of two moves each
          const bool half_used = !extra.empty() && extra.back() == '1';
          tempo = first * (half_used ? 2 : 4);
        }
      }
      if (mover == 0) {
        x_eff -= tempo;
        o_eff -= kOnRoll;
      } else {
        o_eff -= tempo;
        x_eff -= kOnRoll;
      }
    } else {  // chance node: the dice are about to be rolled
      const std::string last = previous.size() > 17 ? previous.substr(17) : "";
      if (last == "0") {
        mover = 1;
        o_eff -= kOnRoll;
      } else if (last == "1") {
        mover = 0;
        x_eff -= kOnRoll;
      }
    }
    const uint64_t x_any = b.x_blot | b.x_made, o_any = b.o_blot | b.o_made;
    const int x_back = bar_x ? -1 : (x_any ? __builtin_ctzll(x_any) : -1);
    const int o_back = bar_o ? kPoints : BitLength(o_any) - 1;
    double variance = kRaceVariance * (std::max(x_eff, 0.0) + std::max(o_eff, 0.0));
    variance += kRaceOffset;
    if ((x_any || bar_x) && (o_any || bar_o) && x_back < o_back) {  // contact: hits possible
      variance += kContactVariance;
      const uint64_t o_from = o_any | (bar_o ? uint64_t{1} << kPoints : 0);
      uint64_t shots = o_from >> 1;
      shots |= shots >> 1;
      shots |= shots >> 2;
      shots |= shots >> 2;
      const uint64_t o_direct = shots & kPointsMask;
      const uint64_t o_indirect = (shots >> 6) & ~o_direct;
      shots = x_any << 1;
      shots |= shots << 1;
      shots |= shots << 2;
      shots |= shots << 2;
      if (bar_x) shots |= 0x3F;
      const uint64_t x_direct = shots & kPointsMask;
      const uint64_t x_indirect = (shots << 6) & kPointsMask & ~x_direct;
      double x_risk = Exposure(b.x_blot, o_direct, o_indirect, x_weights_);
      double o_risk = Exposure(b.o_blot, x_direct, x_indirect, o_weights_);
      if (mover == 0) {
        x_risk *= kOwnRisk;
      } else if (mover == 1) {
        o_risk *= kOwnRisk;
      } else {
        x_risk *= 0.5 + 0.5 * kOwnRisk;
        o_risk *= 0.5 + 0.5 * kOwnRisk;
      }
      const uint64_t x_block = b.x_made & ((uint64_t{1} << o_back) - 1);
      const uint64_t o_block =
          x_back >= 0 ? b.o_made & ~((uint64_t{2} << x_back) - 1) & kPointsMask : b.o_made;
      x_eff += x_risk + bar_x * bar_cost_[PopCount(b.o_made & kOHome)] -
               kBlock * PopCount(x_block) - kPrime * std::max(0, LongestRun(x_block) - 1);
      o_eff += o_risk + bar_o * bar_cost_[PopCount(b.x_made & kXHome)] -
               kBlock * PopCount(o_block) - kPrime * std::max(0, LongestRun(o_block) - 1);
    }
    const double logit = RaceLogit(o_eff, x_eff, variance);
    const double advantage = std::tanh(0.5 * logit);  // 2 p - 1
    if (!gammons_) return advantage;
    const double p_x = 0.5 + 0.5 * advantage;
    double gammon = 0.0;
    if (b.o_count + bar_o == checkers_) {  // o has borne nothing off yet
      const double need = static_cast<double>(b.o_out + 19 * bar_o) + kGammonMargin;
      const double z = RaceLogit(need, x_eff, variance);
      gammon += std::min(p_x, 1.0 / (1.0 + std::exp(-z)));
    }
    if (b.x_count + bar_x == checkers_) {
      const double need = static_cast<double>(b.x_out + 19 * bar_x) + kGammonMargin;
      const double z = RaceLogit(need, o_eff, variance);
      gammon -= std::min(1.0 - p_x, 1.0 / (1.0 + std::exp(-z)));
    }
    return advantage + gammon;
  }

  std::vector<size_t> cells_[kPoints];
  int x_weights_[kPoints];
  int o_weights_[kPoints];
  std::vector<double> bar_cost_;
  int checkers_ = 15;
  bool gammons_ = false;
  double mid_ = 0.0;
  double half_ = 0.0;
};

// ----------------------------------------------------------------------------- pig

constexpr double kPigSlope = 1.436;     // PIG_SLOPE
constexpr double kPigTempo = 1.057;     // PIG_TEMPO
constexpr double kPigTurnRisk = 0.657;  // PIG_TURN_RISK

// A Python dict from int to float: its items in insertion order, which fixes the order of the
// float sums over it.
using Dist = std::vector<std::pair<int, double>>;

void AddTo(Dist& dist, int key, double value) {
  for (auto& item : dist) {
    if (item.first == key) {
      item.second = item.second + value;
      return;
    }
  }
  dist.emplace_back(key, 0.0 + value);
}

struct PigTables {
  int hold = 1;
  std::vector<double> mean, variance;
};

// `pig_turn_tables`.
PigTables TurnTables(int winscore, double bust, const std::vector<std::pair<int, double>>& gains) {
  double gain_sum = 0.0;
  bool first = true;
  for (const auto& [gain, p] : gains) {
    gain_sum = first ? gain * p : gain_sum + gain * p;  // Python's sum starts at the int 0
    first = false;
  }
  const double mean_gain = gain_sum / (1.0 - bust);
  PigTables tables;
  tables.hold = std::max(1, static_cast<int>(std::ceil((1.0 - bust) / bust * mean_gain - 1e-9)));
  int max_gain = 0;
  for (const auto& item : gains) max_gain = std::max(max_gain, item.first);
  std::vector<Dist> banked;  // by threshold
  auto distribution = [&](int threshold) -> const Dist& {
    if (static_cast<int>(banked.size()) <= threshold) banked.resize(threshold + 1);
    if (banked[threshold].empty()) {
      const int top = threshold + max_gain;
      std::vector<Dist> by_total(top + 1);
      for (int total = top; total >= 0; --total) {
        if (total >= threshold) {
          by_total[total] = {{total, 1.0}};
          continue;
        }
        Dist out = {{0, bust}};
        for (const auto& [gain, p] : gains) {
          for (const auto& [points, q] : by_total[total + gain]) AddTo(out, points, p * q);
        }
        by_total[total] = std::move(out);
      }
      banked[threshold] = by_total[0];
    }
    return banked[threshold];
  };
  std::vector<double> mean(winscore + 1, 0.0), square(winscore + 1, 0.0);
  for (int x = 1; x <= winscore; ++x) {
    const Dist& dist = distribution(std::min(tables.hold, x));
    double stay = 0.0;
    for (const auto& item : dist) {
      if (item.first == 0) stay = item.second;
    }
    double next_mean = 0.0, next_square = 0.0;
    for (const auto& [b, p] : dist) {
      if (0 < b && b < x) {
        next_mean += p * mean[x - b];
        next_square += p * square[x - b];
      }
    }
    mean[x] = (1.0 + next_mean) / (1.0 - stay);
    square[x] = (1.0 + 2.0 * (stay * mean[x] + next_mean) + next_square) / (1.0 - stay);
  }
  tables.variance.resize(winscore + 1);
  for (int x = 0; x <= winscore; ++x) {
    tables.variance[x] = std::max(square[x] - mean[x] * mean[x], 0.0);
  }
  tables.mean = std::move(mean);
  return tables;
}

int PyMod(long long a, int n) {
  const long long r = a % n;
  return static_cast<int>(r < 0 ? r + n : r);
}

class PigHeuristic final : public Evaluator {
 public:
  explicit PigHeuristic(const open_spiel::Game& game) : players_(game.NumPlayers()) {
    const open_spiel::GameParameters params = game.GetParameters();
    auto integer = [&params](const char* name, int fallback) {
      return params.count(name) ? params.at(name).int_value() : fallback;
    };
    winscore_ = integer("winscore", 100);
    const int dice = integer("diceoutcomes", 6);
    const bool piglet = params.count("piglet") && params.at("piglet").bool_value();
    if (dice < 2) {
      throw std::invalid_argument("the pig heuristic needs diceoutcomes >= 2, got " +
                                  GameDescription(game));
    }
    // `_pig_outcomes`
    bust_ = 1.0 / dice;
    std::vector<std::pair<int, double>> gains;
    if (piglet) {
      gains.emplace_back(1, 1.0 - bust_);
    } else {
      for (int gain = 2; gain <= dice; ++gain) gains.emplace_back(gain, bust_);
    }
    PigTables tables = TurnTables(winscore_, bust_, gains);
    hold_ = tables.hold;
    mean_ = std::move(tables.mean);
    variance_ = std::move(tables.variance);
    double gain_sum = 0.0;
    bool first = true;
    for (const auto& [gain, p] : gains) {
      gain_sum = first ? gain * p : gain_sum + gain * p;
      first = false;
    }
    gain_ = static_cast<int>(std::nearbyint(gain_sum / (1.0 - bust_)));  // round half to even
    for (const double m : mean_) sloped_mean_.push_back(kPigSlope * m);
    for (int k = 0; k <= hold_; ++k) {
      sloped_tempo_.push_back(kPigSlope * (kPigTempo - kPigTurnRisk * k / hold_));
    }
    const double low = game.MinUtility(), high = game.MaxUtility();
    mid_ = 0.5 * (low + high);
    half_ = 0.5 * (high - low) * kConfidence;
    const std::string text = game.NewInitialState()->ToString();
    std::string expected = "Scores:";
    for (int p = 0; p < players_; ++p) expected += " 0";
    expected += ", Turn total: 0\nCurrent player: 0\n";
    if (text != expected) {
      throw std::invalid_argument("the pig heuristic does not understand how " +
                                  GameDescription(game) +
                                  " prints its initial state: " + PyRepr(text));
    }
  }

  double Value(const open_spiel::State& state, int player) override {
    Values(state, buffer_);
    return buffer_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const std::string text = state.ToString();
    const std::vector<std::string> parts = SplitWhitespace(text);
    const int n = players_;
    if (static_cast<int>(parts.size()) < n + 7 || parts[n].empty()) {
      throw std::invalid_argument("the pig heuristic cannot read " + PyRepr(text));
    }
    if (n != 2) {
      std::vector<long long> scores;
      for (int k = 1; k < n; ++k) scores.push_back(ParseInt(parts[k], "a pig score"));
      scores.push_back(ParseInt(parts[n].substr(0, parts[n].size() - 1), "a pig score"));
      const long long total = ParseInt(parts[n + 3], "a pig turn total");
      const long long mover = ParseInt(parts[n + 6], "a pig player");
      const bool rolling = static_cast<int>(parts.size()) > n + 7;
      Chances(scores, total, mover, rolling, chances_);
      out.resize(n);
      for (int p = 0; p < n; ++p) out[p] = mid_ + half_ * (n * chances_[p] - 1.0) / (n - 1);
      return;
    }
    const long long total = ParseInt(parts[5], "a pig turn total");
    const bool one = parts[8] == "1";  // player 1 is on turn
    const long long first = ParseInt(parts[1], "a pig score");
    const long long second = ParseInt(parts[2].substr(0, parts[2].size() - 1), "a pig score");
    const long long mine = one ? second : first, theirs = one ? first : second;
    double p;
    if (parts.size() > 9) {  // rolling: bust (the opponent moves) or the mean gain
      p = bust_ * (1.0 - MoverChance(theirs, mine, 0)) +
          (1.0 - bust_) * MoverChance(mine, theirs, total + gain_);
    } else {
      p = MoverChance(mine, theirs, total);
    }
    double v = half_ * (2.0 * p - 1.0);
    if (one) v = -v;
    out.assign({mid_ + v, mid_ - v});
  }

  std::string name() const override { return "heuristic"; }

 private:
  // `_mover_chance`: two players, the chance that the player on turn wins.
  double MoverChance(long long mine, long long theirs, long long total) const {
    const long long need = winscore_ - mine - total;
    if (need <= 0) return 1.0;
    const int size = static_cast<int>(mean_.size());
    const int other = PyIndex(winscore_ - theirs, size), needed = PyIndex(need, size);
    const int hold = static_cast<int>(std::min<long long>(total, hold_));
    const double z = (sloped_mean_[other] - sloped_mean_[needed] +
                      sloped_tempo_[PyIndex(hold, static_cast<int>(sloped_tempo_.size()))]) /
                     std::sqrt(variance_[needed] + variance_[other]);
    return 1.0 / (1.0 + std::exp(-z));
  }

  // `_chances`: every player's winning chance (any number of players).
  void Chances(const std::vector<long long>& scores, long long total, long long mover, bool rolling,
               std::vector<double>& out) {
    if (!rolling) {
      MoverChances(scores, total, mover, out);
      return;
    }
    MoverChances(scores, 0, PyMod(mover + 1, players_), bust_chances_);
    MoverChances(scores, total + gain_, mover, out);
    for (int p = 0; p < players_; ++p) {
      out[p] = bust_ * bust_chances_[p] + (1.0 - bust_) * out[p];
    }
  }

  // `_mover_chances`: every player's winning chance with `mover` on turn holding `total`.
  void MoverChances(const std::vector<long long>& scores, long long total, long long mover,
                    std::vector<double>& out) const {
    const int n = players_;
    const int size = static_cast<int>(mean_.size());
    const int on_turn = PyIndex(mover, n);
    out.assign(n, 0.0);
    if (scores[on_turn] + total >= winscore_) {
      for (int p = 0; p < n; ++p) out[p] = p == mover ? 1.0 : 0.0;
      return;
    }
    std::vector<int> needs(n);
    for (int p = 0; p < n; ++p) {
      needs[p] = PyIndex(std::max<long long>(winscore_ - scores[p], 1), size);
    }
    needs[on_turn] = PyIndex(winscore_ - scores[on_turn] - total, size);
    double variance_sum = 0.0;
    for (int p = 0; p < n; ++p)
      variance_sum = p == 0 ? variance_[needs[p]] : variance_sum + variance_[needs[p]];
    const double spread = std::sqrt(2.0 / n * variance_sum);
    std::vector<double>& strengths = out;
    for (int player = 0; player < n; ++player) {
      const int seat = PyMod(player - mover, n);
      double tempo = -2.0 * kPigTempo * seat / n;
      if (seat == 0) {
        tempo -= kPigTurnRisk * std::min<long long>(total, hold_) / hold_;
      }
      strengths[player] = -kPigSlope * (mean_[needs[player]] - tempo) / spread;
    }
    double top = strengths[0];
    for (int p = 1; p < n; ++p) top = std::max(top, strengths[p]);
    double norm = 0.0;
    for (int p = 0; p < n; ++p) {
      strengths[p] = std::exp(strengths[p] - top);
      norm = p == 0 ? strengths[p] : norm + strengths[p];
    }
    for (int p = 0; p < n; ++p) out[p] = strengths[p] / norm;
  }

  int players_;
  int winscore_ = 100;
  int hold_ = 1;
  int gain_ = 0;
  double bust_ = 0.0;
  std::vector<double> mean_, variance_, sloped_mean_, sloped_tempo_;
  double mid_ = 0.0;
  double half_ = 0.0;
  std::vector<double> buffer_, chances_, bust_chances_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeChanceHeuristic(const open_spiel::Game& game) {
  const std::string short_name = game.GetType().short_name;
  if (short_name == "backgammon") return std::make_unique<BackgammonHeuristic>(game);
  if (short_name == "pig") return std::make_unique<PigHeuristic>(game);
  return nullptr;
}

}  // namespace spiel_bounded
