// BROKEN (deadlock): fills only cb_a and never cb_b, so compute waits on cb_b forever,
// the writer waits on compute, and this reader blocks once cb_a is full.
// Same arguments as reader_binary.cpp.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_address = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  const InterleavedAddrGenFast<true> a = {
      .bank_base_address = a_address, .page_size = get_tile_size(cb_a), .data_format = get_dataformat(cb_a)};
  for (uint32_t tile = start; tile < start + count; ++tile) {
    cb_reserve_back(cb_a, 1);
    noc_async_read_tile(tile, a, get_write_ptr(cb_a));
    noc_async_read_barrier();
    cb_push_back(cb_a, 1);
  }
}
