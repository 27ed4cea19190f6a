// Data-movement micro-benchmark (tt-metal tests/tt_metal/tt_metal/data_movement,
// "DRAM Interleaved Packet Sizes", reader): `transactions` reads of `bytes` each from
// an interleaved DRAM buffer whose pages are `bytes` long, into 16 L1 slots reused in
// turn, then one barrier. Page i of the run is first_page + (i % 16) * page_stride
// (stride 1: interleaved over every bank; stride = banks: always one bank).
// Compile-time: cb (16 slots of `bytes`). Runtime: buffer address, transactions,
// bytes, first page, page stride.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  const uint32_t address = get_arg_val<uint32_t>(0);
  const uint32_t transactions = get_arg_val<uint32_t>(1);
  const uint32_t bytes = get_arg_val<uint32_t>(2);
  const uint32_t first_page = get_arg_val<uint32_t>(3);
  const uint32_t page_stride = get_arg_val<uint32_t>(4);
  const InterleavedAddrGen<true> pages = {.bank_base_address = address, .page_size = bytes};
  const uint32_t l1 = get_write_ptr(cb);
  for (uint32_t i = 0; i < transactions; ++i)
    noc_async_read(get_noc_addr(first_page + (i % 16) * page_stride, pages), l1 + (i % 16) * bytes, bytes);
  noc_async_read_barrier();
}
