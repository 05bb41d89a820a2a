#include "value_net.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>

#include "child_sums.h"
#include "features.h"
#include "heuristics_games.h"
#include "input_planes.h"
#include "leaf_memo.h"
#include "net_layers.h"

namespace spiel_bounded {
namespace {

constexpr int kKernel = 3;          // layout.KERNEL_SIZE: 'SAME' 3x3 convolutions
constexpr int kMemoSlotsLog2 = 13;  // `LeafMemo`: 8,192 children, 320 kB with two players (in L2)

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

class ValueNetEvaluator final : public Evaluator {
 public:
  ValueNetEvaluator(const open_spiel::Game& game, const NetModel& model, const FeatureViews& views,
                    std::map<std::string, NetParam> params)
      : form_(game), players_(game.NumPlayers()), features_(game, views) {
    if (model.kind != "mlp" && model.kind != "conv") {
      throw std::invalid_argument("value network: unknown model kind '" + model.kind +
                                  "'; accepted: mlp, conv");
    }
    derived_ = MakeInputPlanes(game, model.inputs);
    if (model.width < 1 || model.depth < 0 || model.channels < 1 || model.conv_layers < 1) {
      throw std::invalid_argument(
          "value network: width, channels and conv_layers must be >= 1 and depth >= 0");
    }
    const std::vector<int> shape = game.ObservationTensorShape();
    observation_size_ = features_.observation_size();
    const int extra = players_ + 1 + (derived_ ? derived_->size() : 0);
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
        convs_.emplace_back(
            channels, model.channels,
            Take(params, name + "/kernel", {kKernel, kKernel, channels, model.channels}, where),
            Take(params, name + "/bias", {model.channels}, where));
        channels = model.channels;
      }
      dense_input = rows_ * columns_ * model.channels + extra;
    }
    int width = dense_input;
    for (int index = 0; index < model.depth; ++index) {
      layers_.push_back(
          TakeDense(params, "dense_" + std::to_string(index), width, model.width, where));
      width = model.width;
    }
    layers_.push_back(TakeDense(params, "out", width, form_.outputs(), where));
    if (!params.empty()) {
      std::string names;
      for (const auto& item : params) names += (names.empty() ? "'" : ", '") + item.first + "'";
      throw std::invalid_argument("value network: unexpected parameter(s) " + names + where);
    }
    const size_t board = convs_.empty() ? 0 : rows_ * columns_ * std::max(planes_, model.channels);
    boards_[0].resize(board);
    boards_[1].resize(board);
    int widest = 0;
    for (const DenseLayer& layer : layers_) widest = std::max(widest, layer.padded());
    hidden_[0].resize(widest);
    hidden_[1].resize(widest);
    raw_.resize(widest);
    sum_.resize(layers_[0].outputs());
    if (derived_) {
      plane_rows_.resize(derived_->size());
      ones_.assign(derived_->size(), 1.0f);
    }
    // A position's children from its own observation: MLPs on turn-based games without chance.
    const open_spiel::GameType& type = game.GetType();
    if (convs_.empty() && type.dynamics == open_spiel::GameType::Dynamics::kSequential &&
        type.chance_mode == open_spiel::GameType::ChanceMode::kDeterministic) {
      children_ = std::make_unique<ChildSums>(game, layers_[0], features_, derived_.get());
      if (children_->keyed()) memo_.emplace(players_, kMemoSlotsLog2);
    }
  }

  double Value(const open_spiel::State& state, int player) override {
    Values(state, values_);
    return values_[player];
  }

  void Values(const open_spiel::State& state, std::vector<double>& out) override {
    Forward(state);
    form_.Values(raw_.data(), out);
  }

  void StartSearch(const open_spiel::State& root) override {
    if (children_) children_->StartSearch(root);
  }

  // The children's first layer's sums from the parent's (`ChildSums`), then the other layers.
  bool BeginChildren(open_spiel::State& parent, int player, bool undo) override {
    if (!children_ || parent.CurrentPlayer() < 0) return false;
    children_->Begin(parent, undo);
    player_ = player;
    return true;
  }

  LeafValue ChildValue(open_spiel::Action move) override {
    if (const open_spiel::State* child = children_->Prepare(move)) {
      if (child->IsTerminal()) return {child->PlayerReturn(player_), true};
      return {Value(*child, player_), false};
    }
    if (memo_.has_value()) {
      if (const double* values = memo_->Find(children_->key())) return {values[player_], false};
    }
    children_->Sum(sum_.data());
    form_.Values(Outputs(), values_);
    if (memo_.has_value()) memo_->Store(children_->key(), values_);
    return {values_[player_], false};
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

  static DenseLayer TakeDense(std::map<std::string, NetParam>& params, const std::string& name,
                              int inputs, int outputs, const std::string& where) {
    std::vector<float> kernel = Take(params, name + "/kernel", {inputs, outputs}, where);
    return DenseLayer(inputs, outputs, std::move(kernel),
                      Take(params, name + "/bias", {outputs}, where));
  }

  // The raw outputs into `raw_`: the first dense layer's sum in float64 (see
  // `DenseLayer::Start`), then the layers in float32.
  void Forward(const open_spiel::State& state) {
    features_.Observe(state);
    const float* input = features_.observed();
    int size = observation_size_;
    if (!convs_.empty()) {
      const int cells = rows_ * columns_;
      float* board = boards_[0].data();
      for (int cell = 0; cell < cells; ++cell) {
        for (int plane = 0; plane < planes_; ++plane) {
          board[cell * planes_ + plane] = input[plane * cells + cell];
        }
      }
      int which = 0;
      for (const ConvLayer& conv : convs_) {
        conv.Apply(rows_, columns_, boards_[which].data(), boards_[1 - which].data());
        which = 1 - which;
      }
      input = boards_[which].data();
      size = cells * convs_.back().out();
    }
    const DenseLayer& first = layers_[0];
    first.Start(sum_.data());
    first.AddNonZero(sum_.data(), input, size, 0);
    first.AddNonZero(sum_.data(), features_.bits(), players_ + 1, size);
    if (derived_) {
      const int count =
          derived_->Entries(features_.observed(), size + players_ + 1, plane_rows_.data());
      first.Add(sum_.data(), sum_.data(), plane_rows_.data(), ones_.data(), count);
    }
    Outputs();
  }

  // The layers from the first one's sum `sum_` on: the raw outputs, in `raw_`.
  const float* Outputs() {
    const size_t last = layers_.size() - 1;
    layers_[0].Finish(sum_.data(), last == 0 ? raw_.data() : hidden_[0].data(), last == 0);
    int which = 0;
    for (size_t index = 1; index <= last; ++index) {
      float* next = index == last ? raw_.data() : hidden_[1 - which].data();
      layers_[index].Apply(hidden_[which].data(), next, index == last);
      which = 1 - which;
    }
    return raw_.data();
  }

  OutputForm form_;
  int players_;
  Features features_;
  int observation_size_ = 0;
  int planes_ = 0, rows_ = 0, columns_ = 0;
  std::vector<ConvLayer> convs_;
  std::vector<DenseLayer> layers_;  // the dense layers, "out" last
  std::vector<float> boards_[2];
  std::vector<float> hidden_[2];
  std::vector<float> raw_;
  std::vector<double> sum_;  // the first layer's sum
  std::vector<double> values_;
  std::unique_ptr<InputPlanes> derived_;  // where the inputs are derived (not "observation")
  std::vector<int> plane_rows_;           // their entries that are 1
  std::vector<float> ones_;
  std::unique_ptr<ChildSums> children_;  // where `BeginChildren` can
  std::optional<LeafMemo> memo_;         // where the children have keys
  int player_ = 0;                       // whose values `ChildValue` gives
};

}  // namespace

std::unique_ptr<Evaluator> MakeValueNetEvaluator(const open_spiel::Game& game,
                                                 const NetModel& model, const FeatureViews& views,
                                                 std::map<std::string, NetParam> params) {
  return std::make_unique<ValueNetEvaluator>(game, model, views, std::move(params));
}

}  // namespace spiel_bounded
