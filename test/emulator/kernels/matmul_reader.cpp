// Matmul reader: for each K block, the core's in0 block (Mt x Kb tiles, row-major) and
// in1 block (Kb x Nt tiles, row-major) from DRAM.
// Compile-time: cb_in0, cb_in1, Mt, Nt, Kt, Kb, Kt_total, Nt_total.
// Runtime: in0 address, in1 address, first output tile row, first output tile column.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_in0 = get_compile_time_arg_val(0);
  constexpr uint32_t cb_in1 = get_compile_time_arg_val(1);
  constexpr uint32_t Mt = get_compile_time_arg_val(2);
  constexpr uint32_t Nt = get_compile_time_arg_val(3);
  constexpr uint32_t Kt = get_compile_time_arg_val(4);
  constexpr uint32_t Kb = get_compile_time_arg_val(5);
  constexpr uint32_t Kt_total = get_compile_time_arg_val(6);
  constexpr uint32_t Nt_total = get_compile_time_arg_val(7);
  const uint32_t in0_address = get_arg_val<uint32_t>(0);
  const uint32_t in1_address = get_arg_val<uint32_t>(1);
  const uint32_t row0 = get_arg_val<uint32_t>(2);
  const uint32_t col0 = get_arg_val<uint32_t>(3);

  const uint32_t tile_bytes = get_tile_size(cb_in0);
  const InterleavedAddrGenFast<true> in0 = {
      .bank_base_address = in0_address, .page_size = tile_bytes, .data_format = get_dataformat(cb_in0)};
  const InterleavedAddrGenFast<true> in1 = {
      .bank_base_address = in1_address, .page_size = tile_bytes, .data_format = get_dataformat(cb_in1)};

  for (uint32_t block = 0; block < Kt / Kb; ++block) {
    cb_reserve_back(cb_in0, Mt * Kb);
    uint32_t l1 = get_write_ptr(cb_in0);
    for (uint32_t h = 0; h < Mt; ++h)
      for (uint32_t k = 0; k < Kb; ++k, l1 += tile_bytes)
        noc_async_read_tile((row0 + h) * Kt_total + block * Kb + k, in0, l1);

    cb_reserve_back(cb_in1, Kb * Nt);
    l1 = get_write_ptr(cb_in1);
    for (uint32_t k = 0; k < Kb; ++k)
      for (uint32_t w = 0; w < Nt; ++w, l1 += tile_bytes)
        noc_async_read_tile((block * Kb + k) * Nt_total + col0 + w, in1, l1);

    noc_async_read_barrier();
    cb_push_back(cb_in0, Mt * Kb);
    cb_push_back(cb_in1, Kb * Nt);
  }
}
