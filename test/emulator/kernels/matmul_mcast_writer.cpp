// Matmul writer with in1 multicast along grid columns (the counterpart of
// matmul_mcast_reader.cpp): the core in row 0 reads each in1 block (Kb x Nt tiles) and
// multicasts it down its column with the same handshake; then every core writes its
// output subblocks to DRAM as matmul_writer.cpp does; with out_in_l1 the output stays
// in L1 (sharded, as in tt-metal's tuned GEMM; timing only: DRAM is not written).
// The output is computed in out blocks of OBH x OBW tiles (row-major, tt-metal's
// num_out_blocks_h/w): for each, the in1 blocks of its OBW columns over all K, then its
// subblocks written, as tt-metal's in1 sender/writer does.
// Compile-time: cb_in1, cb_out, Mt, Nt, Kt, Kb, Nt_total, grid rows, SBH, SBW, out_in_l1,
// OBH, OBW.
// Runtime: in1 address, out address, first output tile row, first output tile column.
// Semaphores: 2 in1 ready, 3 in1 valid.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_in1 = get_compile_time_arg_val(0);
  constexpr uint32_t cb_out = get_compile_time_arg_val(1);
  constexpr uint32_t Mt = get_compile_time_arg_val(2);
  constexpr uint32_t Nt = get_compile_time_arg_val(3);
  constexpr uint32_t Kt = get_compile_time_arg_val(4);
  constexpr uint32_t Kb = get_compile_time_arg_val(5);
  constexpr uint32_t Nt_total = get_compile_time_arg_val(6);
  constexpr uint32_t rows = get_compile_time_arg_val(7);
  constexpr uint32_t SBH = get_compile_time_arg_val(8);
  constexpr uint32_t SBW = get_compile_time_arg_val(9);
  constexpr bool out_in_l1 = get_compile_time_arg_val(10) == 1;
  constexpr uint32_t OBH = get_compile_time_arg_val(11);
  constexpr uint32_t OBW = get_compile_time_arg_val(12);
  constexpr uint32_t receivers = rows - 1;
  const uint32_t in1_address = get_arg_val<uint32_t>(0);
  const uint32_t out_address = get_arg_val<uint32_t>(1);
  const uint32_t row0 = get_arg_val<uint32_t>(2);
  const uint32_t col0 = get_arg_val<uint32_t>(3);

  const uint32_t my_col = my_x[noc_index];
  // Rows 1.. of the column; on NoC 1 from the far end.
  auto column_rectangle = [&](uint32_t address) {
    return noc_index == 1 ? get_noc_multicast_addr(my_col, rows - 1, my_col, 1, address)
                          : get_noc_multicast_addr(my_col, 1, my_col, rows - 1, address);
  };
  const bool sender = my_y[noc_index] == 0;
  const uint32_t ready_address = get_semaphore(2);
  const uint32_t valid_address = get_semaphore(3);
  volatile tt_l1_ptr uint32_t* ready = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(ready_address);
  volatile tt_l1_ptr uint32_t* valid = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(valid_address);
  const uint32_t tile_bytes = get_tile_size(cb_in1);
  const InterleavedAddrGenFast<true> in1 = {
      .bank_base_address = in1_address, .page_size = tile_bytes, .data_format = get_dataformat(cb_in1)};
  const uint32_t out_tile_bytes = get_tile_size(cb_out);  // b may be bfp8_b, out bf16
  const InterleavedAddrGenFast<true> out = {
      .bank_base_address = out_address, .page_size = out_tile_bytes, .data_format = get_dataformat(cb_out)};

  for (uint32_t out_block = 0; out_block < (Mt / OBH) * (Nt / OBW); ++out_block) {
    const uint32_t first_row = row0 + out_block / (Nt / OBW) * OBH;
    const uint32_t first_col = col0 + out_block % (Nt / OBW) * OBW;
    for (uint32_t block = 0; block < Kt / Kb; ++block) {
      cb_reserve_back(cb_in1, Kb * OBW);
      const uint32_t block_address = get_write_ptr(cb_in1);
      if (sender) {
        uint32_t l1 = block_address;
        for (uint32_t k = 0; k < Kb; ++k)
          for (uint32_t w = 0; w < OBW; ++w, l1 += tile_bytes)
            noc_async_read_tile((block * Kb + k) * Nt_total + first_col + w, in1, l1);
        noc_async_read_barrier();
        if (receivers > 0) {
          noc_semaphore_wait(ready, receivers);
          noc_semaphore_set(ready, 0);
          noc_async_write_multicast(block_address, column_rectangle(block_address), Kb * OBW * tile_bytes, receivers);
          *valid = 1;
          noc_semaphore_set_multicast(valid_address, column_rectangle(valid_address), receivers);
          noc_async_write_barrier();
        }
      } else {
        noc_semaphore_set(valid, 0);
        noc_semaphore_inc(get_noc_addr(my_col, 0, ready_address), 1);
        noc_semaphore_wait(valid, 1);
      }
      cb_push_back(cb_in1, Kb * OBW);
    }

    for (uint32_t sb_row = 0; sb_row < OBH / SBH; ++sb_row) {
      for (uint32_t sb_col = 0; sb_col < OBW / SBW; ++sb_col) {
        cb_wait_front(cb_out, SBH * SBW);
        if constexpr (!out_in_l1) {
          uint32_t l1 = get_read_ptr(cb_out);
          for (uint32_t h = 0; h < SBH; ++h)
            for (uint32_t w = 0; w < SBW; ++w, l1 += out_tile_bytes)
              noc_async_write_tile((first_row + sb_row * SBH + h) * Nt_total + first_col + sb_col * SBW + w, out, l1);
          noc_async_write_barrier();
        }
        cb_pop_front(cb_out, SBH * SBW);
      }
    }
  }
}
