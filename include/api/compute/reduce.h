// reduce_tile: DST[idst] = reduce(A * scaler) along a dimension, accumulated into DST.
#pragma once

#include "api/compute/common.h"

namespace ckernel {
enum PoolType { SUM, AVG, MAX };
enum ReduceDim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };
}  // namespace ckernel

namespace ttemu_detail {
constexpr ttemu::ReducePool pool_of(PoolType pool) {
  return pool == SUM ? ttemu::ReducePool::Sum : pool == AVG ? ttemu::ReducePool::Avg : ttemu::ReducePool::Max;
}
constexpr ttemu::ReduceAxis axis_of(ReduceDim dim) {
  return dim == REDUCE_ROW ? ttemu::ReduceAxis::Row
                           : dim == REDUCE_COL ? ttemu::ReduceAxis::Col : ttemu::ReduceAxis::Scalar;
}
}  // namespace ttemu_detail

template <PoolType reduce_type, ReduceDim reduce_dim, bool is_fp32_dest_acc_en = false>
ALWI void reduce_init(uint32_t icb, uint32_t icb_scaler, uint32_t ocb) {
  (void)icb, (void)icb_scaler, (void)ocb;
  ttemu::reduce_init(ttemu_detail::axis_of(reduce_dim));
}

ALWI void reduce_uninit(uint32_t icb = 0) {
  (void)icb;
  ttemu::reduce_uninit();
}

template <PoolType reduce_type, ReduceDim reduce_dim, bool is_fp32_dest_acc_en = false>
ALWI void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler,
                      uint32_t idst) {
  ttemu::reduce_tile(ttemu_detail::pool_of(reduce_type), ttemu_detail::axis_of(reduce_dim), icb,
                     icb_scaler, itile, itile_scaler, idst);
}
