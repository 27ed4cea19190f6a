// BROKEN (hang): sends one tile of a, then spins forever without calling the API.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t a_address = get_arg_val<uint32_t>(0);
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  const InterleavedAddrGenFast<true> a = {
      .bank_base_address = a_address, .page_size = get_tile_size(cb_a), .data_format = get_dataformat(cb_a)};
  cb_reserve_back(cb_a, 1);
  noc_async_read_tile(0, a, get_write_ptr(cb_a));
  noc_async_read_barrier();
  cb_push_back(cb_a, 1);
  volatile bool spinning = true;
  while (spinning) {
  }
}
