// The math of Tensix tile operations on row-major fp32 tiles (32x32).
//
// These are pure functions; the caller (the kernel API in kernel_api.cpp) unpacks CB
// pages into fp32, calls one of these on a DST tile, and rounds DST to its format.
#pragma once

#include "ttemu/kernel_bridge.h"

namespace ttemu {

// dst += A @ B (or A @ B^T): the product accumulated in fp32 over k = 0..31 in order,
// then added to dst, then dst rounded to bf16 when `round_to_bf16` (a 16-bit DST).
void matmul_accumulate_tile(const float* a, const float* b, bool transpose_b, bool round_to_bf16, float* dst);

// Reduce (a * scaler) along `axis` into dst: ROW -> column 0 (one value per row), COL ->
// row 0, SCALAR -> [0][0]. SUM/AVG add to what dst holds; MAX takes the max with it
// when the DST tile was already written in this section, else starts fresh.
void reduce_tile(ReducePool pool, ReduceAxis axis, const float* a, float scaler, bool dst_written, float* dst);

// out = a op broadcast(b); with accumulate, out += a op broadcast(b).
void binary_tile(BinaryOp op, Broadcast bcast, const float* a, const float* b, bool accumulate, float* out);
// out = broadcast(in): ROW repeats row 0, COL column 0, SCALAR element [0][0].
void broadcast_tile(Broadcast bcast, const float* in, float* out);
void transpose_tile(const float* in, float* out);

void sfpu_unary_tile(SfpuUnary op, float param, bool approximate, float* values);
void sfpu_binary_tile(SfpuBinary op, const float* a, const float* b, float* out);
// out = cond != 0 ? if_true : if_false, elementwise (-0 counts as zero, NaN as nonzero);
// `out` may be any of the inputs.
void sfpu_where_tile(const float* cond, const float* if_true, const float* if_false, float* out);

}  // namespace ttemu
