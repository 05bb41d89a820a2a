// The hand-written heuristics of connect_four, tic_tac_toe and breakthrough: the C++ twins of
// `HeuristicEvaluator` in spiel_bounded/evaluators/heuristics.py (`_LineScorer`,
// `_BreakthroughScorer`, `_scorer`, `_player_value`). Each computes the same integer score from
// `state.ToString()` (the string Python reads as `str(state)`) and maps it to a value with the
// same float operations, so values are equal to the last bit (tests/test_native_heuristics.py).
// The boards' own fields are private to OpenSpiel and states can also be built from structs, so
// the printed board is the one reliable view of a state.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "evaluator.h"
#include "heuristics_games.h"
#include "state_text.h"

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

// `text` in quotes with newlines and unprintable bytes escaped, as Python's repr() shows it.
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
    through_.resize(length);
    centre_cell_.assign(length, false);
    for (const int cell : centre_) centre_cell_[cell] = true;
    if (lines_.empty()) return;
    // Python's integers never overflow: refuse boards whose score might not fit in 64 bits
    // (sum over windows of at most 4 ** (window - 1) = 2 ** (2 * window - 2), below 2 ** 62).
    uint64_t count = 0;
    for (const Line& line : lines_) count += line.cells - window + 1;
    if (window > 32 || count >= ((uint64_t{1} << 62) >> (2 * window - 2))) {
      throw std::invalid_argument(
          "the line heuristic's score would overflow: " + std::to_string(count) + " windows of " +
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
    digit_[static_cast<unsigned char>('x')] = 1;
    digit_[static_cast<unsigned char>('o')] = 2;
    FillTables();
    for (size_t line = 0; line < lines_.size(); ++line) {
      for (int k = 0; k < lines_[line].cells; ++k) {
        through_[lines_[line].start + k * lines_[line].step].push_back(static_cast<int>(line));
      }
    }
  }

  int64_t Score(const std::string& text) const {
    CheckLength(text, length_);
    int64_t centre = 0;
    for (const int cell : centre_) centre += (text[cell] == 'x') - (text[cell] == 'o');
    int64_t score = centre_bonus_ * centre;
    for (const Line& line : lines_) score += WorthOf(line, text);
    return score;
  }

  // The score once `piece` fills the empty `cell` of `text`, whose score is `score`, from the
  // lines through that cell only (`ConnectFourChildren` in heuristics.py); nullopt when the
  // piece completes a run of `window` (no line held one before, or the game would be over).
  // `text` is left as it was.
  std::optional<int64_t> ScoreAfter(std::string& text, int64_t score, int cell, char piece) const {
    const std::vector<int>& through = through_[cell];
    for (const int line : through) score -= WorthOf(lines_[line], text);
    if (centre_cell_[cell]) score += piece == 'x' ? centre_bonus_ : -centre_bonus_;
    text[cell] = piece;
    bool won = false;
    for (const int line : through) {
      if (HasRun(lines_[line], text, piece)) {
        won = true;
        break;
      }
      score += WorthOf(lines_[line], text);
    }
    text[cell] = '.';
    if (won) return std::nullopt;
    return score;
  }

 private:
  struct Line {
    int start;  // string index of the first cell
    int step;   // string index difference between consecutive cells
    int cells;
    bool tabled = false;  // valued by `tables_[cells]` (short lines), else window by window
  };

  int64_t WorthOf(const Line& line, const std::string& text) const {
    const char* cells = text.data() + line.start;
    if (!line.tabled) return WindowsOf(cells, line.step, line.cells);
    int index = 0;  // the line's cells as a base-3 number index its worth
    for (int k = line.cells - 1; k >= 0; --k) index = 3 * index + Digit(cells[k * line.step]);
    return tables_[line.cells][index];
  }

  bool HasRun(const Line& line, const std::string& text, char piece) const {
    int run = 0;
    for (int k = 0; k < line.cells; ++k) {
      run = text[line.start + k * line.step] == piece ? run + 1 : 0;
      if (run >= window_) return true;
    }
    return false;
  }

  // The worth of the windows of one line: a window slides along it, its code sum gaining the
  // entering cell and losing the leaving one (the definition the tables are filled from).
  int64_t WindowsOf(const char* cells, int step, int count) const {
    int64_t score = 0;
    int sum = 0;
    int k = 0;
    for (; k < window_ - 1; ++k) sum += Code(cells[k * step]);
    for (; k < count; ++k) {
      sum += Code(cells[k * step]);
      score += weights_[sum];
      sum -= Code(cells[(k - window_ + 1) * step]);
    }
    return score;
  }

  // Fills one table per line length of at most kMaxTableCells cells: every base-3 line (digit
  // 0 '.', 1 'x', 2 'o', first cell least significant) valued by `WindowsOf`.
  void FillTables() {
    for (Line& line : lines_) {
      if (line.cells > kMaxTableCells) continue;
      std::vector<int64_t>& table = tables_[line.cells];
      if (table.empty()) {
        int size = 1;
        for (int k = 0; k < line.cells; ++k) size *= 3;
        table.resize(size);
        std::string cells(line.cells, '.');
        for (int index = 0; index < size; ++index) {
          for (int k = 0, rest = index; k < line.cells; ++k, rest /= 3) cells[k] = ".xo"[rest % 3];
          table[index] = WindowsOf(cells.data(), 1, line.cells);
        }
      }
      line.tabled = true;
    }
  }

  int Code(char cell) const { return code_[static_cast<unsigned char>(cell)]; }
  int Digit(char cell) const { return digit_[static_cast<unsigned char>(cell)]; }

  static constexpr int kMaxTableCells = 9;  // 3^9 entries: larger boards slide windows instead

  int window_;
  int centre_bonus_;
  size_t length_;
  std::vector<Line> lines_;  // the lines holding at least one window
  std::vector<int> centre_;  // string indices of the centre column cells
  std::vector<int64_t> weights_;
  int code_[256] = {};
  int digit_[256] = {};
  std::vector<int64_t> tables_[kMaxTableCells + 1];
  std::vector<std::vector<int>> through_;  // string index -> the lines through that cell
  std::vector<bool> centre_cell_;
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
      weights_[distance] =
          kBreakthroughPiece + distance + (kBreakthroughAdvance * distance * distance) / divisor;
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

  void StartSearch(const open_spiel::State& root) override { text_.emplace(root); }

  double Value(const open_spiel::State& state, int player) override {
    const double offset = Offset(state);
    return player == 0 ? mid_ + offset : mid_ - offset;
  }

  // Both players from one score: the values mirror each other around the middle.
  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    const double offset = Offset(state);
    out.assign({mid_ + offset, mid_ - offset});
  }

  std::string name() const override { return "heuristic"; }

  // connect_four: the children at the depth limit, scored from the parent's text.
  bool BeginChildren(open_spiel::State& parent, int player, bool /*undo*/) override {
    if constexpr (std::is_same_v<Scorer, LineScorer>) {
      if (child_rows_ == 0 || !text_.has_value()) return false;
      text_->Write(parent, parent_text_);
      parent_score_ = scorer_.Score(parent_text_);
      piece_ = parent.CurrentPlayer() == 0 ? 'x' : 'o';
      won_ = parent.CurrentPlayer() == player ? max_utility_ : min_utility_;
      player_ = player;
      empty_cells_ = std::count(parent_text_.begin(), parent_text_.end(), '.');
      return true;
    } else {
      return false;
    }
  }

  LeafValue ChildValue(open_spiel::Action move) override {
    if constexpr (std::is_same_v<Scorer, LineScorer>) {
      const int stride = static_cast<int>(parent_text_.size()) / child_rows_;
      int cell = -1;  // the lowest empty cell of the column: pieces fall to the last row printed
      for (int row = child_rows_ - 1; row >= 0 && cell < 0; --row) {
        if (parent_text_[row * stride + move] == '.') cell = row * stride + static_cast<int>(move);
      }
      const std::optional<int64_t> score =
          scorer_.ScoreAfter(parent_text_, parent_score_, cell, piece_);
      if (!score.has_value()) return {won_, true};
      if (empty_cells_ == 1) return {0.0, true};  // the board is full: a draw
      return {ValueOfScore(*score, player_), false};
    } else {
      return {};
    }
  }

  // connect_four only: enables `BeginChildren` on a board of `rows` printed lines.
  void EnableChildren(int rows, const open_spiel::Game& game) {
    child_rows_ = rows;
    max_utility_ = game.MaxUtility();
    min_utility_ = game.MinUtility();
  }

 private:
  // Player 0's value minus the middle of the range.
  double Offset(const open_spiel::State& state) {
    if (text_.has_value()) {
      text_->Write(state, buffer_);
    } else {
      buffer_ = state.ToString();
    }
    const auto score = static_cast<double>(scorer_.Score(buffer_));
    return half_ * std::tanh(score * inverse_scale_);
  }

  double ValueOfScore(int64_t score, int player) const {
    const double offset = half_ * std::tanh(static_cast<double>(score) * inverse_scale_);
    return player == 0 ? mid_ + offset : mid_ - offset;
  }

  Scorer scorer_;
  int child_rows_ = 0;  // > 0: connect_four's children can be scored from the parent
  std::string parent_text_;
  int64_t parent_score_ = 0;
  char piece_ = 'x';
  double won_ = 0.0;
  int player_ = 0;
  int64_t empty_cells_ = 0;
  double max_utility_ = 0.0;
  double min_utility_ = 0.0;
  std::optional<StateText> text_;  // how the current search's states are read
  std::string buffer_;
  double inverse_scale_;
  double mid_ = 0.0;
  double half_ = 0.0;
};

template <typename Scorer>
std::unique_ptr<Evaluator> MakeBoard(const open_spiel::Game& game, Scorer scorer, double scale) {
  return std::make_unique<BoardHeuristic<Scorer>>(game, std::move(scorer), scale);
}

}  // namespace

std::unique_ptr<Evaluator> MakeHeuristicEvaluator(const open_spiel::Game& game) {
  // The games with chance and the n-player games have their own files.
  if (auto chance = MakeChanceHeuristic(game)) return chance;
  if (auto nplayer = MakeNPlayerHeuristic(game)) return nplayer;
  if (auto amazons = MakeAmazonsHeuristic(game)) return amazons;
  const std::string short_name = game.GetType().short_name;
  if (short_name != "connect_four" && short_name != "tic_tac_toe" && short_name != "breakthrough") {
    return nullptr;
  }
  // Mirrors `_scorer`: the scorers read cells at fixed offsets of the printed board, so a board
  // printed differently (another OpenSpiel version) must fail loudly, not score garbage.
  const std::string text = game.NewInitialState()->ToString();
  auto misprinted = [&] {
    std::string description = game.ToString();  // as `game_description`: no empty "()"
    if (description.size() > 2 && description.compare(description.size() - 2, 2, "()") == 0) {
      description.resize(description.size() - 2);
    }
    return std::invalid_argument("the " + short_name + " heuristic does not understand how " +
                                 description + " prints its initial state: " + Quoted(text));
  };
  const open_spiel::GameParameters params = game.GetParameters();
  auto param = [&params](const char* name) { return params.at(name).int_value(); };

  if (short_name == "tic_tac_toe") {
    if (text != "...\n...\n...") throw misprinted();
    return MakeBoard(game, LineScorer(3, 3, 4, 3, 0, text.size()), kTicTacToeScale);
  }
  const int rows = param("rows"), columns = param("columns");
  if (short_name == "connect_four") {
    std::string expected;
    for (int row = 0; row < rows; ++row) expected += std::string(columns, '.') + "\n";
    if (text != expected) throw misprinted();
    const int window = param("x_in_row");
    if (window < 1) {  // Python would slice nonsense windows
      throw std::invalid_argument("the connect_four heuristic needs x_in_row >= 1, not " +
                                  std::to_string(window));
    }
    auto heuristic = std::make_unique<BoardHeuristic<LineScorer>>(
        game, LineScorer(rows, columns, columns + 1, window, kConnectFourCentreBonus, text.size()),
        kConnectFourScale);
    heuristic->EnableChildren(rows, game);
    return heuristic;
  }
  // breakthrough, layout only (like Python): a one-character label, the cells and a newline per
  // row, then the column letters; ASCII, so that Python's character offsets are byte offsets.
  const bool ascii = std::all_of(text.begin(), text.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (!ascii || text.size() != static_cast<size_t>(rows + 1) * (columns + 2)) throw misprinted();
  return MakeBoard(game, BreakthroughScorer(rows, columns, text.size()), kBreakthroughScale);
}

}  // namespace spiel_bounded
