#include "tile_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>

#include "numerics.h"

namespace ttemu {

namespace {
constexpr int N = kTileRows;  // tiles are square

// A 16-lane fp32 vector (GCC/Clang vector extension; split into narrower registers
// where the host has no 512-bit vectors). A tile row is two of them.
typedef float Lanes __attribute__((vector_size(64)));
constexpr int kLanes = 16;

// Rows of the product computed together: 4 rows x 2 vectors of accumulators stay in
// registers while each row of B is loaded once for all of them.
constexpr int kRowBlock = 4;

void matmul_rows(const float* a, const float* b, bool round_to_bf16, float* dst) {
  for (int i = 0; i < N; i += kRowBlock) {
    Lanes acc[kRowBlock][2] = {};
    for (int k = 0; k < N; ++k) {
      Lanes b_low, b_high;
      std::memcpy(&b_low, b + k * N, sizeof b_low);
      std::memcpy(&b_high, b + k * N + kLanes, sizeof b_high);
      for (int r = 0; r < kRowBlock; ++r) {
        float a_ik = a[(i + r) * N + k];
        acc[r][0] += a_ik * b_low;
        acc[r][1] += a_ik * b_high;
      }
    }
    for (int r = 0; r < kRowBlock; ++r) {
      for (int half = 0; half < 2; ++half) {
        float* out = dst + (i + r) * N + half * kLanes;
        Lanes sum;
        std::memcpy(&sum, out, sizeof sum);
        sum += acc[r][half];
        std::memcpy(out, &sum, sizeof sum);
        if (round_to_bf16) round_sixteen_to_bf16(out);
      }
    }
  }
}
}  // namespace

void matmul_accumulate_tile(const float* a, const float* b, bool transpose_b, bool round_to_bf16, float* dst) {
  if (!transpose_b) {
    matmul_rows(a, b, round_to_bf16, dst);
    return;
  }
  float bt[kTileElements];
  transpose_tile(b, bt);
  matmul_rows(a, bt, round_to_bf16, dst);
}

namespace {
// Max and min with NaN propagating from either operand, as torch.maximum/amax do
// (std::max(x, NaN) is x, std::max(NaN, y) NaN: the result would depend on the order).
// What the SFPU and the FPU's max pool do with NaN is not documented (docs/dsl.md).
float max_keeping_nan(float x, float y) {
  return std::isnan(x) || std::isnan(y) ? std::numeric_limits<float>::quiet_NaN() : std::max(x, y);
}
float min_keeping_nan(float x, float y) {
  return std::isnan(x) || std::isnan(y) ? std::numeric_limits<float>::quiet_NaN() : std::min(x, y);
}
}  // namespace

void reduce_tile(ReducePool pool, ReduceAxis axis, const float* a, float scaler, bool dst_written, float* dst) {
  bool is_max = pool == ReducePool::Max;
  auto combine = [is_max](float x, float y) { return is_max ? max_keeping_nan(x, y) : x + y; };
  auto into_dst = [&](float* slot, float value) {
    *slot = is_max ? (dst_written ? max_keeping_nan(*slot, value) : value) : *slot + value;
  };
  if (axis == ReduceAxis::Row) {
    for (int r = 0; r < N; ++r) {
      float acc = a[r * N] * scaler;
      for (int c = 1; c < N; ++c) acc = combine(acc, a[r * N + c] * scaler);
      into_dst(&dst[r * N], acc);
    }
  } else if (axis == ReduceAxis::Col) {
    for (int c = 0; c < N; ++c) {
      float acc = a[c] * scaler;
      for (int r = 1; r < N; ++r) acc = combine(acc, a[r * N + c] * scaler);
      into_dst(&dst[c], acc);
    }
  } else {
    float acc = a[0] * scaler;
    for (int i = 1; i < kTileElements; ++i) acc = combine(acc, a[i] * scaler);
    into_dst(&dst[0], acc);
  }
}

void broadcast_tile(Broadcast bcast, const float* in, float* out) {
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) {
      switch (bcast) {
        case Broadcast::None: out[r * N + c] = in[r * N + c]; break;
        case Broadcast::Rows: out[r * N + c] = in[c]; break;
        case Broadcast::Cols: out[r * N + c] = in[r * N]; break;
        case Broadcast::Scalar: out[r * N + c] = in[0]; break;
      }
    }
}

void binary_tile(BinaryOp op, Broadcast bcast, const float* a, const float* b, bool accumulate, float* out) {
  float operand[kTileElements];
  const float* rhs = b;
  if (bcast != Broadcast::None) {
    broadcast_tile(bcast, b, operand);
    rhs = operand;
  }
  for (int i = 0; i < kTileElements; ++i) {
    float value = op == BinaryOp::Add ? a[i] + rhs[i] : op == BinaryOp::Sub ? a[i] - rhs[i] : a[i] * rhs[i];
    out[i] = accumulate ? out[i] + value : value;
  }
}

void transpose_tile(const float* in, float* out) {
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c) out[c * N + r] = in[r * N + c];
}

void sfpu_unary_tile(SfpuUnary op, float param, bool approximate, float* values) {
  for (int i = 0; i < kTileElements; ++i) {
    float x = values[i];
    float y = x;
    switch (op) {
      case SfpuUnary::Exp: y = approximate ? exp_approximate(x) : std::exp(x); break;
      case SfpuUnary::Recip: y = 1.0f / x; break;
      case SfpuUnary::Sqrt: y = std::sqrt(x); break;
      case SfpuUnary::Rsqrt: y = 1.0f / std::sqrt(x); break;
      case SfpuUnary::Neg: y = -x; break;
      case SfpuUnary::Abs: y = std::fabs(x); break;
      case SfpuUnary::Relu: y = x > 0.0f ? x : 0.0f; break;
      case SfpuUnary::AddScalar: y = x + param; break;
      case SfpuUnary::SubScalar: y = x - param; break;
      case SfpuUnary::RsubScalar: y = param - x; break;
      case SfpuUnary::MulScalar: y = x * param; break;
      case SfpuUnary::DivScalar: y = x / param; break;
    }
    values[i] = y;
  }
}

void sfpu_binary_tile(SfpuBinary op, const float* a, const float* b, float* out) {
  for (int i = 0; i < kTileElements; ++i) {
    float x = a[i], y = b[i];
    switch (op) {
      case SfpuBinary::Add: out[i] = x + y; break;
      case SfpuBinary::Sub: out[i] = x - y; break;
      case SfpuBinary::Mul: out[i] = x * y; break;
      case SfpuBinary::Div: out[i] = x / y; break;
      case SfpuBinary::Max: out[i] = max_keeping_nan(x, y); break;
      case SfpuBinary::Min: out[i] = min_keeping_nan(x, y); break;
    }
  }
}

void sfpu_where_tile(const float* cond, const float* if_true, const float* if_false, float* out) {
  for (int i = 0; i < kTileElements; ++i) out[i] = cond[i] != 0.0f ? if_true[i] : if_false[i];
}

}  // namespace ttemu
