// The layers of the native value networks (value_net.cc): dense and 'SAME' 3x3 convolution
// layers in float32 as `numpy_net.NumpyNetwork` computes them, equal to it within 1e-6 (the sums
// run in another order, with fused multiply-adds where the processor has them: AVX2 and FMA are
// looked for at run time, the build itself targets any x86-64; SPIEL_BOUNDED_NATIVE_SIMD=0 in the
// environment keeps to the portable kernels).
#pragma once

#include <memory>
#include <vector>

namespace spiel_bounded {

// `input @ kernel + bias`, with ReLU unless linear.
class DenseLayer {
 public:
  DenseLayer() = default;
  // `kernel` is [inputs][outputs] in C order, `bias` [outputs].
  DenseLayer(int inputs, int outputs, std::vector<float> kernel, std::vector<float> bias);

  int inputs() const { return inputs_; }
  int outputs() const { return outputs_; }
  // The floats an output buffer of `Apply` or `Finish` holds: `outputs` rounded up to 8 (the
  // pad is written as zeros).
  int padded() const { return padded_; }

  // `output = input @ kernel + bias` (zero inputs skipped), ReLU'd unless `linear`.
  void Apply(const float* input, float* output, bool linear) const;

  // The same sum in float64, term by term, for a first layer whose inputs change a few at a
  // time (a position's children): each term `x * kernel[row]` of float32 factors is exact in
  // float64 and the sums stay exact while they fit in its 53 bits, so sums of the same terms
  // agree whatever their order (to the last bit with weights of a trained scale).
  // `sum` holds `outputs` entries: `Start` sets it to the bias; `Add` writes `from` (which may
  // be `sum`) plus `xs[k] * kernel[rows[k]]` for k < count, in that order, into `sum`;
  // `AddNonZero` adds `input[i] * kernel[first + i]` for the nonzero `input[i]`, i < size;
  // `Finish` rounds it to float32 as `Apply`'s output.
  void Start(double* sum) const;
  void Add(const double* from, double* sum, const int* rows, const float* xs, int count) const;
  void AddNonZero(double* sum, const float* input, int size, int first) const;
  void Finish(const double* sum, float* output, bool linear) const;
  // Whether every float64 sum of the bias and of rows taken at most once each, added or
  // subtracted, is exact (no rounding in any order: the weights' bits fit in 53 with the largest
  // such sum). Then sums over inputs of 0 and 1 kept up to date term by term stay equal to the
  // sums made afresh, to the last bit.
  bool ExactSums() const;

 private:
  int inputs_ = 0;
  int outputs_ = 0;
  int padded_ = 0;
  std::vector<float> bias_;  // [padded], zero padded
  // The weights in `storage_` from a cache line on, rows `stride_` apart: with fewer than 8
  // outputs, the kernel transposed, [outputs][inputs], for one dot product per output (and
  // `kernel_` as given); else the kernel, its rows padded with zeros to whole cache lines.
  std::unique_ptr<float[]> storage_;
  const float* weights_ = nullptr;
  int stride_ = 0;
  std::vector<float> kernel_;
  const float* rows_of_ = nullptr;  // the kernel's rows for `Add`, `row_stride_` apart
  int row_stride_ = 0;

  // The nonzero entries of `input[0, size)` into `rows_` and `xs_`; their count.
  int Compact(const float* input, int size) const;

  bool avx2_ = false;  // the AVX2 + FMA kernels run
  // The nonzero inputs: their indices and values (8 entries of slack).
  mutable std::vector<int> rows_;
  mutable std::vector<float> xs_;
};

// One 'SAME' 3x3 convolution with ReLU over a board of `rows` x `columns` cells, boards as
// (cell, channel).
class ConvLayer {
 public:
  ConvLayer() = default;
  // `kernel` is [3][3][in][out] in C order, `bias` [out].
  ConvLayer(int in, int out, std::vector<float> kernel, std::vector<float> bias);

  int in() const { return in_; }
  int out() const { return out_; }
  void Apply(int rows, int columns, const float* source, float* target) const;

 private:
  int in_ = 0;
  int out_ = 0;
  std::vector<float> kernel_;
  std::vector<float> bias_;
};

}  // namespace spiel_bounded
