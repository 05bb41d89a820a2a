// GCC's -O2 vectorizes only loops it need not version or finish in scalar code: the layers'
// loops run over any width, so this file asks for the usual cost model (4-8x on conv layers).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include "net_layers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SPIEL_BOUNDED_X86_KERNELS 1
#include <immintrin.h>
#endif

namespace spiel_bounded {
namespace {

constexpr int kLanes = 8;                  // floats in an AVX register
constexpr int kBlock = 8 * kLanes;         // outputs summed in registers at once (8 registers)
constexpr int kSumBlock = 8 * kLanes / 2;  // float64 sums at once (8 registers of 4)
constexpr int kLine = 16;                  // floats in a cache line
constexpr int kKernel = 3;                 // layout.KERNEL_SIZE: 'SAME' 3x3 convolutions

// The nonzero entries of `input[0, size)`, as their indices into `rows` and values into `xs`
// (both of `size` entries; branch-free: about half a ReLU layer's outputs are zero, at random).
int NonZero(const float* input, int size, int* rows, float* xs) {
  int count = 0;
  for (int i = 0; i < size; ++i) {
    rows[count] = i;
    xs[count] = input[i];
    count += input[i] != 0.0f;
  }
  return count;
}

// The smallest biased exponent of the nonzero `values` (at least 1) into `low`, the largest
// into `high`, unless they are already beyond. Magnitudes order as their IEEE bits do, so these
// are the exponents of the smallest nonzero and of the largest magnitude, found by integer
// compares (zero, less one, wraps to the largest integer). Inlined into an AVX2 function
// below, GCC vectorizes it (SSE2 has no 32-bit minimum): 16k weights in 2 us instead of 11.
inline __attribute__((always_inline)) void ExponentRange(const float* values, size_t size,
                                                         uint32_t& low, uint32_t& high) {
  uint32_t least = 0xffffffffu, most = 0;
  for (size_t i = 0; i < size; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    bits &= 0x7fffffffu;
    least = std::min(least, bits - 1);
    most = std::max(most, bits);
  }
  if (least != 0xffffffffu) low = std::min(low, std::max((least + 1) >> 23, 1u));
  high = std::max(high, most >> 23);
}

float Rectified(float y, bool linear) { return !linear && y < 0.0f ? 0.0f : y; }

// -- portable kernels (SSE2 through GCC's vectorizer) -----------------------------------------

// One block of `width` outputs: `block` is its first column, rows `stride` apart.
void WideGeneric(const float* block, int stride, int width, const int* rows, const float* xs,
                 int count, const float* bias, float* out, bool linear) {
  float acc[kBlock] = {};
  for (int k = 0; k < count; ++k) {
    const float x = xs[k];
    const float* __restrict row = block + static_cast<size_t>(rows[k]) * stride;
    for (int j = 0; j < width; ++j) acc[j] += x * row[j];
  }
  for (int j = 0; j < width; ++j) out[j] = Rectified(acc[j] + bias[j], linear);
}

float DotGeneric(const float* x, const float* w, int size) {
  float part[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= size; i += kLanes) {
    for (int lane = 0; lane < kLanes; ++lane) part[lane] += x[i + lane] * w[i + lane];
  }
  float sum =
      ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7]));
  for (; i < size; ++i) sum += x[i] * w[i];
  return sum;
}

// `sum[j] = from[j] + sum_k xs[k] * kernel[rows[k]][j]` for j < width, rows `stride` apart.
void AddGeneric(const double* from, double* sum, const float* kernel, int stride, const int* rows,
                const float* xs, int count, int width) {
  if (from != sum) std::copy(from, from + width, sum);
  for (int k = 0; k < count; ++k) {
    const double x = xs[k];
    const float* __restrict row = kernel + static_cast<size_t>(rows[k]) * stride;
    for (int j = 0; j < width; ++j) sum[j] += x * static_cast<double>(row[j]);
  }
}

// -- AVX2 + FMA kernels -----------------------------------------------------------------------

#ifdef SPIEL_BOUNDED_X86_KERNELS

#define SPIEL_BOUNDED_AVX2 __attribute__((target("avx2,fma,popcnt")))

bool CpuHasAvx2Fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("popcnt");
}

// For each mask of 8 lanes, the lanes set, packed to the front (one byte each).
struct LeftPack {
  uint64_t lanes[256];
  LeftPack() {
    for (int mask = 0; mask < 256; ++mask) {
      uint64_t packed = 0;
      int count = 0;
      for (int lane = 0; lane < kLanes; ++lane) {
        if (mask & (1 << lane)) packed |= uint64_t(lane) << (8 * count++);
      }
      lanes[mask] = packed;
    }
  }
};
const LeftPack kLeftPack;

// `NonZero` 8 entries at a time: `rows` and `xs` need 8 entries of slack.
SPIEL_BOUNDED_AVX2 int NonZeroAvx2(const float* input, int size, int* rows, float* xs) {
  int count = 0;
  int i = 0;
  const __m256 zero = _mm256_setzero_ps();
  for (; i + kLanes <= size; i += kLanes) {
    const __m256 x = _mm256_loadu_ps(input + i);
    const int mask = _mm256_movemask_ps(_mm256_cmp_ps(x, zero, _CMP_NEQ_UQ));
    const __m256i lanes =
        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kLeftPack.lanes[mask])));
    _mm256_storeu_ps(xs + count, _mm256_permutevar8x32_ps(x, lanes));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows + count),
                        _mm256_add_epi32(lanes, _mm256_set1_epi32(i)));
    count += __builtin_popcount(mask);
  }
  for (; i < size; ++i) {
    rows[count] = i;
    xs[count] = input[i];
    count += input[i] != 0.0f;
  }
  return count;
}

// One block of `V` registers of outputs: its accumulators stay in registers over all the rows.
template <int V>
SPIEL_BOUNDED_AVX2 void WideBlockAvx2(const float* block, int stride, const int* rows,
                                      const float* xs, int count, const float* bias, float* out,
                                      bool linear) {
  __m256 acc[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) acc[v] = _mm256_setzero_ps();
  for (int k = 0; k < count; ++k) {
    const __m256 x = _mm256_set1_ps(xs[k]);
    const float* row = block + static_cast<size_t>(rows[k]) * stride;
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
      acc[v] = _mm256_fmadd_ps(x, _mm256_loadu_ps(row + v * kLanes), acc[v]);
    }
  }
  const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) {
    __m256 y = _mm256_add_ps(acc[v], _mm256_loadu_ps(bias + v * kLanes));
    if (!linear) y = _mm256_max_ps(zero, y);  // keeps NaN and -0.0 as the portable kernel does
    _mm256_storeu_ps(out + v * kLanes, y);
  }
}

SPIEL_BOUNDED_AVX2 void WideAvx2(const float* block, int stride, int width, const int* rows,
                                 const float* xs, int count, const float* bias, float* out,
                                 bool linear) {
  switch (width / kLanes) {
    case 1:
      return WideBlockAvx2<1>(block, stride, rows, xs, count, bias, out, linear);
    case 2:
      return WideBlockAvx2<2>(block, stride, rows, xs, count, bias, out, linear);
    case 3:
      return WideBlockAvx2<3>(block, stride, rows, xs, count, bias, out, linear);
    case 4:
      return WideBlockAvx2<4>(block, stride, rows, xs, count, bias, out, linear);
    case 5:
      return WideBlockAvx2<5>(block, stride, rows, xs, count, bias, out, linear);
    case 6:
      return WideBlockAvx2<6>(block, stride, rows, xs, count, bias, out, linear);
    case 7:
      return WideBlockAvx2<7>(block, stride, rows, xs, count, bias, out, linear);
    default:
      return WideBlockAvx2<8>(block, stride, rows, xs, count, bias, out, linear);
  }
}

SPIEL_BOUNDED_AVX2 float DotAvx2(const float* x, const float* w, int size) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int i = 0;
  for (; i + 4 * kLanes <= size; i += 4 * kLanes) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(w + i + 8), a1);
    a2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 16), _mm256_loadu_ps(w + i + 16), a2);
    a3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 24), _mm256_loadu_ps(w + i + 24), a3);
  }
  for (; i + kLanes <= size; i += kLanes) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(w + i), a0);
  }
  const __m256 all = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
  __m128 half = _mm_add_ps(_mm256_castps256_ps128(all), _mm256_extractf128_ps(all, 1));
  half = _mm_add_ps(half, _mm_movehl_ps(half, half));
  half = _mm_add_ss(half, _mm_movehdup_ps(half));
  float sum = _mm_cvtss_f32(half);
  for (; i < size; ++i) sum += x[i] * w[i];
  return sum;
}

// Float64 sums of `V` registers of 4: products of float32 factors are exact in float64, so a
// fused multiply-add gives what the portable kernel's multiply and add give.
template <int V>
SPIEL_BOUNDED_AVX2 void AddBlockAvx2(const double* from, double* sum, const float* kernel,
                                     int stride, const int* rows, const float* xs, int count) {
  __m256d acc[V];
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) acc[v] = _mm256_loadu_pd(from + 4 * v);
  for (int k = 0; k < count; ++k) {
    const __m256d x = _mm256_set1_pd(xs[k]);
    const float* row = kernel + static_cast<size_t>(rows[k]) * stride;
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
      acc[v] = _mm256_fmadd_pd(x, _mm256_cvtps_pd(_mm_loadu_ps(row + 4 * v)), acc[v]);
    }
  }
#pragma GCC unroll 8
  for (int v = 0; v < V; ++v) _mm256_storeu_pd(sum + 4 * v, acc[v]);
}

SPIEL_BOUNDED_AVX2 void AddAvx2(const double* from, double* sum, const float* kernel, int stride,
                                int outputs, const int* rows, const float* xs, int count) {
  int j = 0;
  for (; j + kSumBlock <= outputs; j += kSumBlock) {
    AddBlockAvx2<kSumBlock / 4>(from + j, sum + j, kernel + j, stride, rows, xs, count);
  }
  for (; j + 4 <= outputs; j += 4) {
    AddBlockAvx2<1>(from + j, sum + j, kernel + j, stride, rows, xs, count);
  }
  if (j < outputs) AddGeneric(from + j, sum + j, kernel + j, stride, rows, xs, count, outputs - j);
}

SPIEL_BOUNDED_AVX2 void FinishAvx2(const double* sum, float* output, int outputs, bool linear) {
  const __m128 zero = _mm_setzero_ps();
  int j = 0;
  for (; j + 4 <= outputs; j += 4) {
    __m128 y = _mm256_cvtpd_ps(_mm256_loadu_pd(sum + j));
    if (!linear) y = _mm_max_ps(zero, y);
    _mm_storeu_ps(output + j, y);
  }
  for (; j < outputs; ++j) output[j] = Rectified(static_cast<float>(sum[j]), linear);
}

SPIEL_BOUNDED_AVX2 void ExponentRangeAvx2(const float* values, size_t size, uint32_t& low,
                                          uint32_t& high) {
  ExponentRange(values, size, low, high);
}

#undef SPIEL_BOUNDED_AVX2

#else

bool CpuHasAvx2Fma() { return false; }

#endif  // SPIEL_BOUNDED_X86_KERNELS

// Whether the AVX2 + FMA kernels run: the processor has them and SPIEL_BOUNDED_NATIVE_SIMD is
// not "0" (which the tests set to check the portable kernels).
bool UseAvx2() {
  static const bool use = [] {
    const char* setting = std::getenv("SPIEL_BOUNDED_NATIVE_SIMD");
    return CpuHasAvx2Fma() && !(setting != nullptr && std::strcmp(setting, "0") == 0);
  }();
  return use;
}

}  // namespace

DenseLayer::DenseLayer(int inputs, int outputs, std::vector<float> kernel, std::vector<float> bias)
    : inputs_(inputs),
      outputs_(outputs),
      padded_((outputs + kLanes - 1) / kLanes * kLanes),
      bias_(std::move(bias)),
      avx2_(UseAvx2()),
      rows_(inputs + kLanes),
      xs_(inputs + kLanes) {
  bias_.resize(padded_, 0.0f);
  // The weights `Apply` reads start on a cache line (64 bytes): a register's load then never
  // straddles two lines, and a block of 64 outputs is 4 whole lines of each row (1.4x faster
  // than malloc's 16-byte alignment). Not zeroed: every entry is written below.
  const auto aligned = [this](size_t size) {
    storage_.reset(new float[size + kLine]);
    const auto address = reinterpret_cast<uintptr_t>(storage_.get());
    return storage_.get() + (kLine - address / sizeof(float) % kLine) % kLine;
  };
  if (outputs_ < kLanes) {  // transposed, for dot products; the rows kept for `Add`
    stride_ = inputs_;
    float* weights = aligned(static_cast<size_t>(outputs_) * stride_);
    for (int j = 0; j < outputs_; ++j) {
      for (int i = 0; i < inputs_; ++i) {
        weights[static_cast<size_t>(j) * stride_ + i] =
            kernel[static_cast<size_t>(i) * outputs_ + j];
      }
    }
    weights_ = weights;
    kernel_ = std::move(kernel);
    rows_of_ = kernel_.data();
    row_stride_ = outputs_;
    return;
  }
  stride_ = (outputs_ + kLine - 1) / kLine * kLine;  // rows padded with zeros to whole lines
  float* weights = aligned(static_cast<size_t>(inputs_) * stride_);
  for (int i = 0; i < inputs_; ++i) {
    float* row = weights + static_cast<size_t>(i) * stride_;
    std::copy_n(&kernel[static_cast<size_t>(i) * outputs_], outputs_, row);
    std::fill(row + outputs_, row + stride_, 0.0f);
  }
  weights_ = weights;
  rows_of_ = weights;
  row_stride_ = stride_;
}

void DenseLayer::Apply(const float* input, float* output, bool linear) const {
  if (outputs_ < kLanes) {
    for (int j = 0; j < outputs_; ++j) {
      const float* weights = weights_ + static_cast<size_t>(j) * stride_;
#ifdef SPIEL_BOUNDED_X86_KERNELS
      const float dot =
          avx2_ ? DotAvx2(input, weights, inputs_) : DotGeneric(input, weights, inputs_);
#else
      const float dot = DotGeneric(input, weights, inputs_);
#endif
      output[j] = Rectified(dot + bias_[j], linear);
    }
    std::fill(output + outputs_, output + padded_, 0.0f);
    return;
  }
  const int count = Compact(input, inputs_);
  for (int start = 0; start < padded_; start += kBlock) {
    const int width = std::min(kBlock, padded_ - start);
#ifdef SPIEL_BOUNDED_X86_KERNELS
    if (avx2_) {
      WideAvx2(weights_ + start, stride_, width, rows_.data(), xs_.data(), count, &bias_[start],
               output + start, linear);
      continue;
    }
#endif
    WideGeneric(weights_ + start, stride_, width, rows_.data(), xs_.data(), count, &bias_[start],
                output + start, linear);
  }
}

void DenseLayer::Start(double* sum) const {
  std::copy(bias_.begin(), bias_.begin() + outputs_, sum);
}

void DenseLayer::Add(const double* from, double* sum, const int* rows, const float* xs,
                     int count) const {
#ifdef SPIEL_BOUNDED_X86_KERNELS
  if (avx2_) return AddAvx2(from, sum, rows_of_, row_stride_, outputs_, rows, xs, count);
#endif
  AddGeneric(from, sum, rows_of_, row_stride_, rows, xs, count, outputs_);
}

void DenseLayer::AddNonZero(double* sum, const float* input, int size, int first) const {
  const int count = Compact(input, size);
  for (int k = 0; k < count; ++k) rows_[k] += first;
  Add(sum, sum, rows_.data(), xs_.data(), count);
}

int DenseLayer::Compact(const float* input, int size) const {
#ifdef SPIEL_BOUNDED_X86_KERNELS
  if (avx2_) return NonZeroAvx2(input, size, rows_.data(), xs_.data());
#endif
  return NonZero(input, size, rows_.data(), xs_.data());
}

bool DenseLayer::ExactSums() const {
  // Every float32 is a multiple of 2^(e - 150) with e its biased exponent (1 for denormals): all
  // the weights of 2^(low - 150), `low` their smallest exponent; the sums need 150 - low bits
  // below the binary point and those of the largest sum above it.
  uint32_t low = 0xff, high = 0;
  const size_t size = static_cast<size_t>(inputs_) * row_stride_;  // with any pad of zeros
#ifdef SPIEL_BOUNDED_X86_KERNELS
  if (avx2_) {
    ExponentRangeAvx2(rows_of_, size, low, high);
  } else {
    ExponentRange(rows_of_, size, low, high);
  }
#else
  ExponentRange(rows_of_, size, low, high);
#endif
  ExponentRange(bias_.data(), bias_.size(), low, high);
  if (high == 0xff) return false;  // inf or NaN
  std::vector<double> bound(outputs_);
  for (int j = 0; j < outputs_; ++j) bound[j] = std::fabs(bias_[j]);
  for (int i = 0; i < inputs_; ++i) {
    const float* row = rows_of_ + static_cast<size_t>(i) * row_stride_;
    for (int j = 0; j < outputs_; ++j) bound[j] += std::fabs(static_cast<double>(row[j]));
  }
  const double widest = *std::max_element(bound.begin(), bound.end());
  return std::ldexp(widest, std::max(0, 150 - static_cast<int>(low))) < std::ldexp(1.0, 52);
}

void DenseLayer::Finish(const double* sum, float* output, bool linear) const {
#ifdef SPIEL_BOUNDED_X86_KERNELS
  if (avx2_) {
    FinishAvx2(sum, output, outputs_, linear);
  } else {
    for (int j = 0; j < outputs_; ++j) output[j] = Rectified(static_cast<float>(sum[j]), linear);
  }
#else
  for (int j = 0; j < outputs_; ++j) output[j] = Rectified(static_cast<float>(sum[j]), linear);
#endif
  std::fill(output + outputs_, output + padded_, 0.0f);
}

ConvLayer::ConvLayer(int in, int out, std::vector<float> kernel, std::vector<float> bias)
    : in_(in), out_(out), kernel_(std::move(kernel)), bias_(std::move(bias)) {}

void ConvLayer::Apply(int rows, int columns, const float* source, float* __restrict target) const {
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      float* __restrict out = target + (row * columns + column) * out_;
      std::fill(out, out + out_, 0.0f);
      for (int kr = 0; kr < kKernel; ++kr) {
        const int r = row + kr - kKernel / 2;
        if (r < 0 || r >= rows) continue;
        for (int kc = 0; kc < kKernel; ++kc) {
          const int c = column + kc - kKernel / 2;
          if (c < 0 || c >= columns) continue;
          const float* in = source + (r * columns + c) * in_;
          const float* taps = &kernel_[static_cast<size_t>((kr * kKernel + kc) * in_) * out_];
          for (int ci = 0; ci < in_; ++ci) {
            const float x = in[ci];
            if (x == 0.0f) continue;
            const float* __restrict weights = taps + ci * out_;
            for (int co = 0; co < out_; ++co) out[co] += x * weights[co];
          }
        }
      }
      for (int co = 0; co < out_; ++co) {
        out[co] += bias_[co];
        if (out[co] < 0.0f) out[co] = 0.0f;
      }
    }
  }
}

}  // namespace spiel_bounded
