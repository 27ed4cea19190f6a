// Broken reader_binary: pushes each tile before waiting for its NoC reads, a race on
// hardware (compute may unpack the page before the NoC has written it).
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_address = get_arg_val<uint32_t>(0);
  const uint32_t b_address = get_arg_val<uint32_t>(1);
  const uint32_t start = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  constexpr uint32_t cb_b = get_compile_time_arg_val(1);

  const InterleavedAddrGenFast<true> a = {
      .bank_base_address = a_address, .page_size = get_tile_size(cb_a), .data_format = get_dataformat(cb_a)};
  const InterleavedAddrGenFast<true> b = {
      .bank_base_address = b_address, .page_size = get_tile_size(cb_b), .data_format = get_dataformat(cb_b)};

  for (uint32_t tile = start; tile < start + count; ++tile) {
    cb_reserve_back(cb_a, 1);
    cb_reserve_back(cb_b, 1);
    noc_async_read_tile(tile, a, get_write_ptr(cb_a));
    noc_async_read_tile(tile, b, get_write_ptr(cb_b));
    cb_push_back(cb_a, 1);
    cb_push_back(cb_b, 1);
    noc_async_read_barrier();
  }
}
