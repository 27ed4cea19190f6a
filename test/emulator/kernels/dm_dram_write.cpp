// Data-movement micro-benchmark ("DRAM Interleaved Packet Sizes", writer): the
// counterpart of dm_dram_read.cpp, `transactions` writes of `bytes` from 16 L1 slots
// to interleaved DRAM pages, then one barrier.
// Compile-time: cb. Runtime: buffer address, transactions, bytes, first page, page stride.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  const uint32_t address = get_arg_val<uint32_t>(0);
  const uint32_t transactions = get_arg_val<uint32_t>(1);
  const uint32_t bytes = get_arg_val<uint32_t>(2);
  const uint32_t first_page = get_arg_val<uint32_t>(3);
  const uint32_t page_stride = get_arg_val<uint32_t>(4);
  const InterleavedAddrGen<true> pages = {.bank_base_address = address, .page_size = bytes};
  const uint32_t l1 = get_read_ptr(cb);
  for (uint32_t i = 0; i < transactions; ++i)
    noc_async_write(l1 + (i % 16) * bytes, get_noc_addr(first_page + (i % 16) * page_stride, pages), bytes);
  noc_async_write_barrier();
}
