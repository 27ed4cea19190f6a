// Writer: tiles [start, start + count) of one DRAM tensor from a CB, through a TensorAccessor.
// Runtime args: address, start tile, tile count. Compile-time: cb, then TensorAccessorArgs.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t address = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  constexpr auto args = TensorAccessorArgs<1>();
  const auto out = TensorAccessor(args, address, get_tile_size(cb));

  for (uint32_t tile = start; tile < start + count; ++tile) {
    cb_wait_front(cb, 1);
    noc_async_write_tile(tile, out, get_read_ptr(cb));
    noc_async_write_barrier();
    cb_pop_front(cb, 1);
  }
}
