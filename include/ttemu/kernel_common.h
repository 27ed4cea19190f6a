// What compute and data-movement kernels share: attribute macros, kernel arguments,
// compile-time arguments and the circular-buffer calls (tt-metal declares these in
// both api/compute/cb_api.h and api/dataflow/dataflow_api.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "ttemu/kernel_bridge.h"

#define ALWI inline __attribute__((always_inline))
#define FORCE_INLINE inline __attribute__((always_inline))
#define tt_l1_ptr
// Generated helpers (ttkernel CPP_DEFINITION) call this; on hardware it is empty.
#define TTLANG_MODELED_COST(helper) ttemu::charge_helper(helper)
#define tt_reg_ptr

using ttemu::DataFormat;

// Compile-time args arrive as -DKERNEL_COMPILE_TIME_ARGS=a,b,c (as in tt-metal). They
// live in an anonymous namespace because every kernel is its own translation unit.
#ifndef KERNEL_COMPILE_TIME_ARGS
#define KERNEL_COMPILE_TIME_ARGS
#endif
namespace {
template <uint32_t... Values>
struct TtemuCompileTimeArgs {
  static constexpr uint32_t count = sizeof...(Values);
  static constexpr uint32_t values[sizeof...(Values) + 1] = {Values..., 0};
  // Out-of-range indices fail to compile in constant expressions and fail loudly at run time.
  static constexpr uint32_t at(uint32_t index) {
    return index < count ? values[index]
                         : (ttemu::kernel_error("get_compile_time_arg_val: index out of range"), 0);
  }
};
using TtemuKernelCompileTimeArgs = TtemuCompileTimeArgs<KERNEL_COMPILE_TIME_ARGS>;
}  // namespace
#define get_compile_time_arg_val(arg_idx) (TtemuKernelCompileTimeArgs::at(arg_idx))

template <typename T>
FORCE_INLINE T get_arg_val(int arg_idx) {
  static_assert(sizeof(T) == 4, "get_arg_val: runtime args are 32-bit");
  uint32_t raw = ttemu::runtime_arg(static_cast<uint32_t>(arg_idx));
  T value;
  std::memcpy(&value, &raw, sizeof value);
  return value;
}

template <typename T>
FORCE_INLINE T get_common_arg_val(int arg_idx) {
  static_assert(sizeof(T) == 4, "get_common_arg_val: runtime args are 32-bit");
  uint32_t raw = ttemu::common_runtime_arg(static_cast<uint32_t>(arg_idx));
  T value;
  std::memcpy(&value, &raw, sizeof value);
  return value;
}

FORCE_INLINE void cb_wait_front(uint32_t cbid, uint32_t ntiles) { ttemu::cb_wait_front(cbid, ntiles); }
FORCE_INLINE void cb_pop_front(uint32_t cbid, uint32_t ntiles) { ttemu::cb_pop_front(cbid, ntiles); }
FORCE_INLINE void cb_reserve_back(uint32_t cbid, uint32_t ntiles) { ttemu::cb_reserve_back(cbid, ntiles); }
FORCE_INLINE void cb_push_back(uint32_t cbid, uint32_t ntiles) { ttemu::cb_push_back(cbid, ntiles); }
FORCE_INLINE bool cb_pages_available_at_front(uint32_t cbid, uint32_t ntiles) {
  return ttemu::cb_pages_available_at_front(cbid, ntiles);
}
FORCE_INLINE bool cb_pages_reservable_at_back(uint32_t cbid, uint32_t ntiles) {
  return ttemu::cb_pages_reservable_at_back(cbid, ntiles);
}
FORCE_INLINE uint32_t get_write_ptr(uint32_t cbid) { return ttemu::cb_write_ptr(cbid); }
FORCE_INLINE uint32_t get_read_ptr(uint32_t cbid) { return ttemu::cb_read_ptr(cbid); }
FORCE_INLINE uint32_t get_tile_size(uint32_t cbid) { return ttemu::cb_page_size(cbid); }
FORCE_INLINE DataFormat get_dataformat(uint32_t cbid) { return ttemu::cb_data_format(cbid); }
