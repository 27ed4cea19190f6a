// Data-movement micro-benchmark (tt-metal data_movement "One to All Multicast"): core
// (0, 0) multicasts `transactions` writes of `bytes` each from its CB to the same CB on
// the cores (x0..x1, y0..y1) except itself, linked or not, then one barrier; the other
// cores do nothing.
// Compile-time: cb. Runtime: transactions, bytes, x1, y1, linked.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  const uint32_t transactions = get_arg_val<uint32_t>(0);
  const uint32_t bytes = get_arg_val<uint32_t>(1);
  const uint32_t x1 = get_arg_val<uint32_t>(2);
  const uint32_t y1 = get_arg_val<uint32_t>(3);
  const bool linked = get_arg_val<uint32_t>(4) == 1;
  if (my_x[noc_index] != 0 || my_y[noc_index] != 0) return;
  const uint32_t destinations = (x1 + 1) * (y1 + 1) - 1;
  const uint32_t l1 = get_write_ptr(cb);
  for (uint32_t i = 0; i < transactions; ++i) {
    const uint32_t slot = l1 + (i % 16) * bytes;
    noc_async_write_multicast(slot, get_noc_multicast_addr(0, 0, x1, y1, slot), bytes, destinations,
                              linked && i + 1 < transactions);
  }
  noc_async_write_barrier();
}
