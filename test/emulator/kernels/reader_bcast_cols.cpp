// Reader for a column broadcast: for each tile row i, tile i of the column vector b
// (Ht x 1 tiles, read with a raw noc_async_read of its NoC address), then the Wt tiles
// of row i of a.
// Compile-time: cb_a, cb_b, Ht, Wt. Runtime: a address, b address.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  constexpr uint32_t cb_b = get_compile_time_arg_val(1);
  constexpr uint32_t Ht = get_compile_time_arg_val(2);
  constexpr uint32_t Wt = get_compile_time_arg_val(3);
  const InterleavedAddrGenFast<true> a = {
      .bank_base_address = get_arg_val<uint32_t>(0), .page_size = get_tile_size(cb_a), .data_format = get_dataformat(cb_a)};
  const InterleavedAddrGen<true> b = {.bank_base_address = get_arg_val<uint32_t>(1), .page_size = get_tile_size(cb_b)};

  for (uint32_t row = 0; row < Ht; ++row) {
    cb_reserve_back(cb_b, 1);
    noc_async_read(get_noc_addr(row, b), get_write_ptr(cb_b), get_tile_size(cb_b));
    noc_async_read_barrier();
    cb_push_back(cb_b, 1);
    for (uint32_t col = 0; col < Wt; ++col) {
      cb_reserve_back(cb_a, 1);
      noc_async_read_tile(row * Wt + col, a, get_write_ptr(cb_a));
      noc_async_read_barrier();
      cb_push_back(cb_a, 1);
    }
  }
}
