// Reader: tiles [start, start + count) of three DRAM tensors into three CBs, one tile at a time.
// Runtime args: a, b, c addresses, start tile, tile count. Compile-time: cb_a, cb_b, cb_c.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t start = get_arg_val<uint32_t>(3);
  const uint32_t count = get_arg_val<uint32_t>(4);
  constexpr uint32_t cbs[3] = {get_compile_time_arg_val(0), get_compile_time_arg_val(1),
                               get_compile_time_arg_val(2)};
  InterleavedAddrGenFast<true> tensors[3];
  for (uint32_t i = 0; i < 3; ++i)
    tensors[i] = {.bank_base_address = get_arg_val<uint32_t>(static_cast<int>(i)),
                  .page_size = get_tile_size(cbs[i]),
                  .data_format = get_dataformat(cbs[i])};

  for (uint32_t tile = start; tile < start + count; ++tile) {
    for (uint32_t i = 0; i < 3; ++i) {
      cb_reserve_back(cbs[i], 1);
      noc_async_read_tile(tile, tensors[i], get_write_ptr(cbs[i]));
    }
    noc_async_read_barrier();
    for (uint32_t i = 0; i < 3; ++i) cb_push_back(cbs[i], 1);
  }
}
