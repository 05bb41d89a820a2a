// GCC's -O2 vectorizes only loops it need not version or finish in scalar code: the layers'
// loops run over any width, so this file asks for the usual cost model (4-8x on conv layers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include "value_net.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "heuristics_games.h"
#include "open_spiel/observer.h"

namespace spiel_bounded {
namespace {

constexpr int kKernel = 3;  // layout.KERNEL_SIZE: 'SAME' 3x3 convolutions

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t k = 0; k < shape.size(); ++k) text += (k ? ", " : "") + std::to_string(shape[k]);
  return text + "]";
}

// `outputs.OutputForm`: how raw outputs become per-player values inside the utility range.
struct OutputForm {
  enum Kind { kMirror, kShares, kIndependent } kind = kIndependent;
  int players = 2;
  double low = 0.0, high = 0.0, total = 0.0;

  explicit OutputForm(const open_spiel::Game& game) : players(game.NumPlayers()) {
    low = game.MinUtility();
    high = game.MaxUtility();
    const auto utility = game.GetType().utility;
    if (utility != open_spiel::GameType::Utility::kZeroSum &&
        utility != open_spiel::GameType::Utility::kConstantSum) {
      return;
    }
    total = utility == open_spiel::GameType::Utility::kZeroSum ? 0.0 : game.UtilitySum().value();
    if (players == 2) {
      kind = kMirror;
      return;
    }
    kind = kShares;
    low = std::max(low, (total - high) / (players - 1));
  }

  int outputs() const { return kind == kMirror ? 1 : players; }

  // `values_of_one`, in float64 from the float32 raw outputs.
  void Values(const float* raw, std::vector<double>& out) const {
    out.resize(players);
    if (kind == kMirror) {
      const double mid = 0.5 * total;
      const double half = std::min(high - mid, mid - low);
      const double value = half * std::tanh(static_cast<double>(raw[0]));
      out[0] = mid + value;
      out[1] = mid - value;
      return;
    }
    if (kind == kShares) {
      double top = raw[0];
      for (int p = 1; p < players; ++p) top = std::max(top, static_cast<double>(raw[p]));
      double sum = 0.0;
      for (int p = 0; p < players; ++p) {
        out[p] = std::exp(static_cast<double>(raw[p]) - top);
        sum += out[p];
      }
      for (int p = 0; p < players; ++p) out[p] = low + (total - players * low) * (out[p] / sum);
      return;
    }
    for (int p = 0; p < players; ++p) {
      out[p] = low + (high - low) / (1.0 + std::exp(-static_cast<double>(raw[p])));
    }
  }
};

struct Dense {
  int inputs = 0, outputs = 0;
  std::vector<float> kernel;  // [inputs][outputs]
  std::vector<float> bias;
};

struct Conv {
  int in = 0, out = 0;
  std::vector<float> kernel;  // [3][3][in][out]
  std::vector<float> bias;
};

class ValueNetEvaluator final : public Evaluator {
 public:
  ValueNetEvaluator(const open_spiel::Game& game, const NetModel& model,
                    const std::string& chance_view, std::map<std::string, NetParam> params)
      : form_(game), players_(game.NumPlayers()) {
    if (model.kind != "mlp" && model.kind != "conv") {
      throw std::invalid_argument("value network: unknown model kind '" + model.kind +
                                  "'; accepted: mlp, conv");
    }
    if (chance_view != "next_mover" && chance_view != "player_0") {
      throw std::invalid_argument("value network: unknown chance view '" + chance_view +
                                  "'; accepted: next_mover, player_0");
    }
    if (model.width < 1 || model.depth < 0 || model.channels < 1 || model.conv_layers < 1) {
      throw std::invalid_argument(
          "value network: width, channels and conv_layers must be >= 1 and depth >= 0");
    }
    next_mover_ = chance_view == "next_mover";
    if (!game.GetType().provides_observation_tensor) {
      throw std::invalid_argument("value network: " + GameDescription(game) +
                                  " has no observation tensor, which a value network reads");
    }
    const std::vector<int> shape = game.ObservationTensorShape();
    observation_size_ = game.ObservationTensorSize();
    const int extra = players_ + 1;
    int dense_input = observation_size_ + extra;
    const std::string where = " of the " + model.kind + " model on " + GameDescription(game);
    if (model.kind == "conv") {
      if (shape.size() != 3) {
        std::vector<int64_t> wide(shape.begin(), shape.end());
        throw std::invalid_argument(
            "value network: a conv model reads a board observation of shape (planes, rows, "
            "columns); this game's observation has shape " +
            ShapeText(wide));
      }
      planes_ = shape[0];
      rows_ = shape[1];
      columns_ = shape[2];
      int channels = planes_;
      for (int index = 0; index < model.conv_layers; ++index) {
        const std::string name = "conv_" + std::to_string(index);
        Conv conv;
        conv.in = channels;
        conv.out = model.channels;
        conv.kernel =
            Take(params, name + "/kernel", {kKernel, kKernel, channels, model.channels}, where);
        conv.bias = Take(params, name + "/bias", {model.channels}, where);
        convs_.push_back(std::move(conv));
        channels = model.channels;
      }
      dense_input = rows_ * columns_ * model.channels + extra;
    }
    int width = dense_input;
    for (int index = 0; index < model.depth; ++index) {
      dense_.push_back(
          TakeDense(params, "dense_" + std::to_string(index), width, model.width, where));
      width = model.width;
    }
    out_ = TakeDense(params, "out", width, form_.outputs(), where);
    if (!params.empty()) {
      std::string names;
      for (const auto& item : params) names += (names.empty() ? "'" : ", '") + item.first + "'";
      throw std::invalid_argument("value network: unexpected parameter(s) " + names + where);
    }
    observation_ = std::make_unique<open_spiel::Observation>(
        game, game.MakeObserver(std::nullopt, open_spiel::GameParameters{}));
    // The observer writes every tensor into one buffer that it never reallocates (Python reads
    // it as one array, `Features.observation`): its start is read once.
    if (observation_->HasTensor()) {
      const std::vector<open_spiel::SpanTensor> tensors = observation_->tensors();
      int size = 0;
      for (const open_spiel::SpanTensor& tensor : tensors) {
        if (tensor.data().data() != tensors[0].data().data() + size) size = -1;
        if (size < 0) break;
        size += static_cast<int>(tensor.data().size());
      }
      if (size == observation_size_) observed_ = tensors[0].data().data();
    }
    if (observed_ == nullptr) {
      throw std::invalid_argument("value network: the default observer of " +
                                  GameDescription(game) +
                                  " does not write the observation tensor in one piece");
    }
    const size_t board = convs_.empty() ? 0 : rows_ * columns_ * std::max(planes_, model.channels);
    boards_[0].resize(board);
    boards_[1].resize(board);
    int widest = dense_input;
    for (const Dense& layer : dense_) widest = std::max(widest, layer.outputs);
    hidden_[0].resize(widest);
    hidden_[1].resize(widest);
    raw_.resize(form_.outputs());
  }

  double Value(const open_spiel::State& state, int player) override {
    Values(state, values_);
    return values_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    Forward(state);
    form_.Values(raw_.data(), out);
  }

  std::string name() const override { return "value_net"; }

 private:
  // Removes `name` from `params` after checking its shape.
  static std::vector<float> Take(std::map<std::string, NetParam>& params, const std::string& name,
                                 const std::vector<int64_t>& shape, const std::string& where) {
    const auto found = params.find(name);
    if (found == params.end()) {
      throw std::invalid_argument("value network: missing parameter '" + name + "'" + where +
                                  " (expected shape " + ShapeText(shape) + ")");
    }
    if (found->second.shape != shape) {
      throw std::invalid_argument("value network: parameter '" + name + "' has shape " +
                                  ShapeText(found->second.shape) + ", but" + where + " needs " +
                                  ShapeText(shape));
    }
    std::vector<float> data = std::move(found->second.data);
    params.erase(found);
    return data;
  }

  static Dense TakeDense(std::map<std::string, NetParam>& params, const std::string& name,
                         int inputs, int outputs, const std::string& where) {
    Dense layer;
    layer.inputs = inputs;
    layer.outputs = outputs;
    layer.kernel = Take(params, name + "/kernel", {inputs, outputs}, where);
    layer.bias = Take(params, name + "/bias", {outputs}, where);
    return layer;
  }

  // `features.next_mover`: who moves once chance has acted (player 0 if the game ends first).
  static int NextMover(const open_spiel::State& state) {
    std::unique_ptr<open_spiel::State> next = state.Clone();
    while (next->IsChanceNode()) next->ApplyAction(next->LegalActions()[0]);
    return std::max(next->CurrentPlayer(), 0);
  }

  // `Features.observe`: the observation into `observation_`, and the mover bits.
  void Observe(const open_spiel::State& state) {
    const int mover = state.CurrentPlayer();
    extra_.assign(players_ + 1, 0.0f);
    if (mover >= 0) {
      observation_->SetFrom(state, mover);
      extra_[mover] = 1.0f;
    } else if (!next_mover_) {
      observation_->SetFrom(state, 0);
      extra_[players_] = 1.0f;
    } else {
      const int observer = NextMover(state);
      observation_->SetFrom(state, observer);
      extra_[observer] = 1.0f;
      extra_[players_] = 1.0f;
    }
  }

  // `hidden @ kernel + bias` (zero inputs skipped), with ReLU unless `linear`.
  static void Apply(const Dense& layer, const float* input, float* __restrict output, bool linear) {
    std::fill(output, output + layer.outputs, 0.0f);
    for (int i = 0; i < layer.inputs; ++i) {
      const float x = input[i];
      if (x == 0.0f) continue;
      const float* __restrict row = &layer.kernel[static_cast<size_t>(i) * layer.outputs];
      for (int j = 0; j < layer.outputs; ++j) output[j] += x * row[j];
    }
    for (int j = 0; j < layer.outputs; ++j) {
      output[j] += layer.bias[j];
      if (!linear && output[j] < 0.0f) output[j] = 0.0f;
    }
  }

  // One 'SAME' 3x3 convolution with ReLU, boards as (cell, channel).
  void Convolve(const Conv& conv, const float* source, float* __restrict target) const {
    for (int row = 0; row < rows_; ++row) {
      for (int column = 0; column < columns_; ++column) {
        float* __restrict out = target + (row * columns_ + column) * conv.out;
        std::fill(out, out + conv.out, 0.0f);
        for (int kr = 0; kr < kKernel; ++kr) {
          const int r = row + kr - kKernel / 2;
          if (r < 0 || r >= rows_) continue;
          for (int kc = 0; kc < kKernel; ++kc) {
            const int c = column + kc - kKernel / 2;
            if (c < 0 || c >= columns_) continue;
            const float* in = source + (r * columns_ + c) * conv.in;
            const float* taps =
                &conv.kernel[static_cast<size_t>((kr * kKernel + kc) * conv.in) * conv.out];
            for (int ci = 0; ci < conv.in; ++ci) {
              const float x = in[ci];
              if (x == 0.0f) continue;
              const float* __restrict weights = taps + ci * conv.out;
              for (int co = 0; co < conv.out; ++co) out[co] += x * weights[co];
            }
          }
        }
        for (int co = 0; co < conv.out; ++co) {
          out[co] += conv.bias[co];
          if (out[co] < 0.0f) out[co] = 0.0f;
        }
      }
    }
  }

  void Forward(const open_spiel::State& state) {
    Observe(state);
    const float* observed = observed_;
    std::vector<float>& input = hidden_[0];
    int size = 0;
    if (convs_.empty()) {
      std::copy(observed, observed + observation_size_, input.begin());
      size = observation_size_;
    } else {
      const int cells = rows_ * columns_;
      float* board = boards_[0].data();
      for (int cell = 0; cell < cells; ++cell) {
        for (int plane = 0; plane < planes_; ++plane) {
          board[cell * planes_ + plane] = observed[plane * cells + cell];
        }
      }
      int which = 0;
      for (const Conv& conv : convs_) {
        Convolve(conv, boards_[which].data(), boards_[1 - which].data());
        which = 1 - which;
      }
      size = cells * convs_.back().out;
      std::copy(boards_[which].begin(), boards_[which].begin() + size, input.begin());
    }
    std::copy(extra_.begin(), extra_.end(), input.begin() + size);
    int which = 0;
    for (const Dense& layer : dense_) {
      Apply(layer, hidden_[which].data(), hidden_[1 - which].data(), false);
      which = 1 - which;
    }
    Apply(out_, hidden_[which].data(), raw_.data(), true);
  }

  OutputForm form_;
  int players_;
  bool next_mover_ = true;
  int observation_size_ = 0;
  int planes_ = 0, rows_ = 0, columns_ = 0;
  std::vector<Conv> convs_;
  std::vector<Dense> dense_;
  Dense out_;
  std::unique_ptr<open_spiel::Observation> observation_;
  const float* observed_ = nullptr;  // the observation `observation_` writes
  std::vector<float> extra_;
  std::vector<float> boards_[2];
  std::vector<float> hidden_[2];
  std::vector<float> raw_;
  std::vector<double> values_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeValueNetEvaluator(const open_spiel::Game& game,
                                                 const NetModel& model,
                                                 const std::string& chance_view,
                                                 std::map<std::string, NetParam> params) {
  return std::make_unique<ValueNetEvaluator>(game, model, chance_view, std::move(params));
}

}  // namespace spiel_bounded
