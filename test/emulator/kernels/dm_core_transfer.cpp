// Data-movement micro-benchmark (tt-metal data_movement "One from One" / "One to One"):
// `transactions` reads (or writes) of `bytes` each between this core's CB and the
// same CB on core (x, y), 16 slots reused in turn, then one barrier. Cores with
// transactions = 0 do nothing.
// Compile-time: cb. Runtime: transactions, bytes, x, y, write (0 read, 1 write).
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  const uint32_t transactions = get_arg_val<uint32_t>(0);
  const uint32_t bytes = get_arg_val<uint32_t>(1);
  const uint32_t x = get_arg_val<uint32_t>(2);
  const uint32_t y = get_arg_val<uint32_t>(3);
  const bool write = get_arg_val<uint32_t>(4) == 1;
  if (transactions == 0) return;
  const uint32_t l1 = get_write_ptr(cb);
  for (uint32_t i = 0; i < transactions; ++i) {
    const uint32_t slot = l1 + (i % 16) * bytes;
    if (write)
      noc_async_write(slot, get_noc_addr(x, y, slot), bytes);
    else
      noc_async_read(get_noc_addr(x, y, slot), slot, bytes);
  }
  if (write)
    noc_async_write_barrier();
  else
    noc_async_read_barrier();
}
