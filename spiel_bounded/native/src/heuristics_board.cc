// The hand-written heuristics of connect_four, tic_tac_toe and breakthrough: the C++ twins of
// `HeuristicEvaluator` in spiel_bounded/evaluators/heuristics.py (`_LineScorer`,
// `_BreakthroughScorer`, `_scorer`, `_player_value`). Each computes the same integer score from
// `state.ToString()` (the string Python reads as `str(state)`) and maps it to a value with the
// same float operations, so values are equal to the last bit (tests/test_native_heuristics.py).
// The boards' own fields are private to OpenSpiel and states can also be built from structs, so
// the printed board is the one reliable view of a state.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "evaluator.h"

namespace spiel_bounded {
namespace {

// The constants of spiel_bounded/evaluators/heuristics.py, under their Python names.
constexpr int kLineWeightBase = 4;              // LINE_WEIGHT_BASE
constexpr int kConnectFourCentreBonus = 2;      // CONNECT_FOUR_CENTRE_BONUS
constexpr double kConnectFourScale = 48.0;      // CONNECT_FOUR_SCALE
constexpr double kTicTacToeScale = 8.0;         // TIC_TAC_TOE_SCALE
constexpr int kBreakthroughPiece = 10;          // BREAKTHROUGH_PIECE
constexpr int kBreakthroughAdvance = 8;         // BREAKTHROUGH_ADVANCE
constexpr int kBreakthroughNearPromotion = 10;  // BREAKTHROUGH_NEAR_PROMOTION
constexpr int kBreakthroughDefended = 1;        // BREAKTHROUGH_DEFENDED
constexpr double kBreakthroughScale = 30.0;     // BREAKTHROUGH_SCALE
constexpr double kConfidence = 0.95;            // _CONFIDENCE

// `text` as Python's repr() would show it (enough of it for error messages).
std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(c);
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

// A state string whose length differs from the initial state's would make the scorers read out
// of bounds; OpenSpiel never prints one, so this is a cheap guard, not a code path.
void CheckLength(const std::string& text, size_t expected) {
  if (text.size() != expected) {
    throw std::invalid_argument("heuristic: a state printed " + std::to_string(text.size()) +
                                " characters instead of " + std::to_string(expected) + ": " +
                                Quoted(text));
  }
}

// `_LineScorer`: every window of `window` consecutive cells along a row, column or diagonal
// holding n pieces of one player only is worth +-LINE_WEIGHT_BASE ** (n - 1) ('x' is player 0),
// plus `centre_bonus` per 'x' minus per 'o' in the centre column(s).
class LineScorer {
 public:
  // The board is `rows` lines of `columns` cells, `stride` characters apart in the string.
  LineScorer(int rows, int columns, int stride, int window, int centre_bonus, size_t length)
      : window_(window), centre_bonus_(centre_bonus), length_(length) {
    const int centre_low = (columns - 1) / 2, centre_high = columns / 2;
    // Mirrors `add` in `_LineScorer.__init__`: lines shorter than the window hold no window.
    auto add = [&](int row, int column, int d_row, int d_column, bool centre) {
      int cells = 0;
      while (0 <= row + cells * d_row && row + cells * d_row < rows &&
             0 <= column + cells * d_column && column + cells * d_column < columns) {
        ++cells;
      }
      const Line line{row * stride + column, d_row * stride + d_column, cells};
      if (cells >= window) lines_.push_back(line);
      if (centre) {
        for (int k = 0; k < cells; ++k) centre_.push_back(line.start + k * line.step);
      }
    };
    for (int row = 0; row < rows; ++row) add(row, 0, 0, 1, false);
    for (int column = 0; column < columns; ++column) {
      add(0, column, 1, 0, centre_bonus != 0 && (column == centre_low || column == centre_high));
    }
    for (int column = 0; column < columns; ++column) add(0, column, 1, 1, false);
    for (int row = 1; row < rows; ++row) add(row, 0, 1, 1, false);
    for (int column = 0; column < columns; ++column) add(0, column, 1, -1, false);
    for (int row = 1; row < rows; ++row) add(row, columns - 1, 1, -1, false);
    if (lines_.empty()) return;
    // Python's integers never overflow: refuse boards whose score might not fit in 64 bits
    // (sum over windows of at most 4 ** (window - 1) = 2 ** (2 * window - 2), below 2 ** 62).
    uint64_t count = 0;
    for (const Line& line : lines_) count += line.cells - window + 1;
    if (window > 32 || count >= (uint64_t{1} << 62 >> (2 * window - 2))) {
      throw std::invalid_argument("the line heuristic's score would overflow: " +
                                  std::to_string(count) + " windows of " +
                                  std::to_string(window) + " cells");
    }
    // A window's pieces are counted as one sum of cell codes, 'x' = 1 and 'o' = window + 1,
    // so `weights_[sum]` is the window's signed worth: own pieces with no opponent piece.
    code_[static_cast<unsigned char>('x')] = 1;
    code_[static_cast<unsigned char>('o')] = window + 1;
    weights_.assign((window + 1) * (window + 1), 0);
    for (int n = 1; n <= window; ++n) {
      const int64_t worth = int64_t{1} << (2 * (n - 1));  // LINE_WEIGHT_BASE ** (n - 1)
      weights_[n] = worth;
      weights_[n * (window + 1)] = -worth;
    }
    static_assert(kLineWeightBase == 4, "the weights are computed as powers of two");
  }

  int64_t Score(const std::string& text) const {
    CheckLength(text, length_);
    int64_t centre = 0;
    for (const int cell : centre_) centre += (text[cell] == 'x') - (text[cell] == 'o');
    int64_t score = centre_bonus_ * centre;
    // Slides a window along each line: its code sum gains the cell entering, loses the one leaving.
    for (const Line& line : lines_) {
      const char* cells = text.data() + line.start;
      const int step = line.step;
      int sum = 0;
      int k = 0;
      for (; k < window_ - 1; ++k) sum += Code(cells[k * step]);
      for (; k < line.cells; ++k) {
        sum += Code(cells[k * step]);
        score += weights_[sum];
        sum -= Code(cells[(k - window_ + 1) * step]);
      }
    }
    return score;
  }

 private:
  struct Line {
    int start;  // string index of the first cell
    int step;   // string index difference between consecutive cells
    int cells;
  };

  int Code(char cell) const { return code_[static_cast<unsigned char>(cell)]; }

  int window_;
  int centre_bonus_;
  size_t length_;
  std::vector<Line> lines_;  // the lines holding at least one window
  std::vector<int> centre_;  // string indices of the centre column cells
  std::vector<int64_t> weights_;
  int code_[256] = {};
};

// `_BreakthroughScorer`: 'b' (player 0, moving down) and 'w' (player 1, moving up) pieces are
// worth a weight by distance from their home row, plus BREAKTHROUGH_DEFENDED per piece with a
// friendly piece diagonally behind it. Each printed row is a one-character label, the cells and
// a newline; a line of column letters ends the board.
class BreakthroughScorer {
 public:
  BreakthroughScorer(int rows, int columns, size_t length)
      : rows_(rows), columns_(columns), length_(length), weights_(rows > 1 ? rows : 0) {
    if (rows < 2) return;  // no window of two rows: Python scores every board 0
    const int goal = rows - 1;
    const int divisor = (goal - 1) * (goal - 1) > 1 ? (goal - 1) * (goal - 1) : 1;
    for (int distance = 0; distance < goal; ++distance) {
      weights_[distance] = kBreakthroughPiece + distance +
                           (kBreakthroughAdvance * distance * distance) / divisor;
    }
    weights_[goal - 1] += kBreakthroughNearPromotion;
    weights_[goal] = kBreakthroughPiece + 2 * (kBreakthroughAdvance + kBreakthroughNearPromotion);
  }

  int64_t Score(const std::string& text) const {
    CheckLength(text, length_);
    if (rows_ < 2) return 0;
    const int goal = rows_ - 1, stride = columns_ + 2;
    // Branch-free counting (the cells are unpredictable). A row's neighbours at columns -1 and
    // `columns_` are its label and newline: in the string, and masked out in `Diagonal`.
    int64_t score = 0;
    for (int row = 0; row < rows_; ++row) {
      const char* cells = text.data() + row * stride + 1;
      int black = 0, white = 0;
      for (int column = 0; column < columns_; ++column) {
        black += cells[column] == 'b';
        white += cells[column] == 'w';
      }
      score += weights_[row] * black - weights_[goal - row] * white;
    }
    // Row pairs (upper, lower): 'b' in the lower row defended from above, 'w' in the upper
    // row defended from below.
    int defended = 0;
    for (int row = 0; row < goal; ++row) {
      const char* upper = text.data() + row * stride + 1;
      const char* lower = upper + stride;
      for (int column = 0; column < columns_; ++column) {
        defended += (lower[column] == 'b') & Diagonal(upper, column, 'b');
        defended -= (upper[column] == 'w') & Diagonal(lower, column, 'w');
      }
    }
    return score + kBreakthroughDefended * defended;
  }

 private:
  // Whether `row` holds `piece` at `column - 1` or `column + 1`.
  bool Diagonal(const char* row, int column, char piece) const {
    return ((column > 0) & (row[column - 1] == piece)) |
           ((column + 1 < columns_) & (row[column + 1] == piece));
  }

  int rows_;
  int columns_;
  size_t length_;
  std::vector<int64_t> weights_;  // by distance from the home row
};

// `HeuristicEvaluator` for one scorer: `_player_value` of the integer score.
template <typename Scorer>
class BoardHeuristic final : public Evaluator {
 public:
  BoardHeuristic(const open_spiel::Game& game, Scorer scorer, double scale)
      : scorer_(std::move(scorer)), inverse_scale_(1.0 / scale) {
    const double low = game.MinUtility(), high = game.MaxUtility();
    mid_ = 0.5 * (low + high);
    half_ = 0.5 * (high - low) * kConfidence;
  }

  double Value(const open_spiel::State& state, int player) override {
    const auto score = static_cast<double>(scorer_.Score(state.ToString()));
    const double offset = half_ * std::tanh(score * inverse_scale_);
    return player == 0 ? mid_ + offset : mid_ - offset;
  }

  std::string name() const override { return "heuristic"; }

 private:
  Scorer scorer_;
  double inverse_scale_;
  double mid_ = 0.0;
  double half_ = 0.0;
};

template <typename Scorer>
std::unique_ptr<Evaluator> Make(const open_spiel::Game& game, Scorer scorer, double scale) {
  return std::make_unique<BoardHeuristic<Scorer>>(game, std::move(scorer), scale);
}

}  // namespace

std::unique_ptr<Evaluator> MakeHeuristicEvaluator(const open_spiel::Game& game) {
  const std::string short_name = game.GetType().short_name;
  if (short_name != "connect_four" && short_name != "tic_tac_toe" &&
      short_name != "breakthrough") {
    return nullptr;
  }
  // Mirrors `_scorer`: the scorers read cells at fixed offsets of the printed board.
  const std::string text = game.NewInitialState()->ToString();
  const open_spiel::GameParameters params = game.GetParameters();
  auto param = [&params](const char* name) { return params.at(name).int_value(); };
  bool understood = false;
  std::unique_ptr<Evaluator> evaluator;
  if (short_name == "connect_four") {
    const int rows = param("rows"), columns = param("columns"), window = param("x_in_row");
    std::string line(columns, '.');
    line += '\n';
    std::string expected;
    for (int row = 0; row < rows; ++row) expected += line;
    understood = text == expected;
    if (understood && window < 1) {
      throw std::invalid_argument("the connect_four heuristic needs x_in_row >= 1 in " +
                                  game.ToString());
    }
    if (understood) {
      evaluator = Make(game,
                       LineScorer(rows, columns, columns + 1, window, kConnectFourCentreBonus,
                                  text.size()),
                       kConnectFourScale);
    }
  } else if (short_name == "tic_tac_toe") {
    understood = text == "...\n...\n...";
    if (understood) evaluator = Make(game, LineScorer(3, 3, 4, 3, 0, text.size()), kTicTacToeScale);
  } else {
    const int rows = param("rows"), columns = param("columns");
    // Layout only (like Python): one label character, the cells and a newline per row, then
    // the column letters; ASCII so that Python's character offsets are byte offsets.
    understood = text.size() == static_cast<size_t>(rows + 1) * (columns + 2);
    for (const char c : text) understood = understood && static_cast<unsigned char>(c) < 0x80;
    if (understood) {
      evaluator = Make(game, BreakthroughScorer(rows, columns, text.size()), kBreakthroughScale);
    }
  }
  if (!understood) {
    std::string description = game.ToString();  // as `game_description`: no empty "()"
    if (description.size() > 2 && description.compare(description.size() - 2, 2, "()") == 0) {
      description.resize(description.size() - 2);
    }
    throw std::invalid_argument("the " + short_name + " heuristic does not understand how " +
                                description + " prints its initial state: " + Quoted(text));
  }
  return evaluator;
}

}  // namespace spiel_bounded
