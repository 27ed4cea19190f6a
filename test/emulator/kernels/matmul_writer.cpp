// Matmul writer: output subblocks (SBH x SBW tiles, row-major within a subblock, in
// row-major subblock order over the core's Mt x Nt block) to their tiles in DRAM.
// Compile-time: cb_out, Mt, Nt, SBH, SBW, Nt_total.
// Runtime: out address, first output tile row, first output tile column.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_out = get_compile_time_arg_val(0);
  constexpr uint32_t Mt = get_compile_time_arg_val(1);
  constexpr uint32_t Nt = get_compile_time_arg_val(2);
  constexpr uint32_t SBH = get_compile_time_arg_val(3);
  constexpr uint32_t SBW = get_compile_time_arg_val(4);
  constexpr uint32_t Nt_total = get_compile_time_arg_val(5);
  const uint32_t out_address = get_arg_val<uint32_t>(0);
  const uint32_t row0 = get_arg_val<uint32_t>(1);
  const uint32_t col0 = get_arg_val<uint32_t>(2);

  const uint32_t tile_bytes = get_tile_size(cb_out);
  const InterleavedAddrGenFast<true> out = {
      .bank_base_address = out_address, .page_size = tile_bytes, .data_format = get_dataformat(cb_out)};

  for (uint32_t sb_row = 0; sb_row < Mt / SBH; ++sb_row) {
    for (uint32_t sb_col = 0; sb_col < Nt / SBW; ++sb_col) {
      cb_wait_front(cb_out, SBH * SBW);
      uint32_t l1 = get_read_ptr(cb_out);
      for (uint32_t h = 0; h < SBH; ++h)
        for (uint32_t w = 0; w < SBW; ++w, l1 += tile_bytes)
          noc_async_write_tile((row0 + sb_row * SBH + h) * Nt_total + col0 + sb_col * SBW + w, out, l1);
      noc_async_write_barrier();
      cb_pop_front(cb_out, SBH * SBW);
    }
  }
}
