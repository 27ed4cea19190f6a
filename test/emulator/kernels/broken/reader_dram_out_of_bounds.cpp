// BROKEN (DRAM bounds): reads one tile past the end of buffer a.
// Same arguments as reader_binary.cpp.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_address = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(2);
  const uint32_t count = get_arg_val<uint32_t>(3);
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  const InterleavedAddrGenFast<true> a = {
      .bank_base_address = a_address, .page_size = get_tile_size(cb_a), .data_format = get_dataformat(cb_a)};
  cb_reserve_back(cb_a, 1);
  noc_async_read_tile(start + count, a, get_write_ptr(cb_a));
  noc_async_read_barrier();
}
