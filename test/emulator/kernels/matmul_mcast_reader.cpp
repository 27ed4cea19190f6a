// Matmul reader with in0 multicast along grid rows (tt-metal's 2D reuse-mcast scheme):
// K block b belongs to the core in column b % cols, as when in0 is block-sharded over
// the grid; that core reads the block (Mt x Kb tiles) from DRAM and multicasts it to
// the other cores of its row, which wait for it instead of reading DRAM. (One column
// reading every block would funnel all of in0 down that column's NoC links.)
// Handshake per block: a receiver reserves its CB block, clears its "valid" semaphore
// and increments the sender's "ready" semaphore; the sender waits for every receiver,
// multicasts the block into the same CB address, then multicasts valid = 1.
// With in0_in_l1 the block is taken to be in the sender's L1 already (in0 sharded in
// L1, as in tt-metal's tuned GEMM): a timing-only variant that multicasts whatever the
// CB holds. The output is computed in out blocks of OBH rows x OBW columns (row-major,
// tt-metal's num_out_blocks_h/w): each out block takes its OBH rows of in0 over all K
// again.
// Compile-time: cb_in0, Mt, Kt, Kb, Kt_total, grid cols, in0_in_l1, OBH, out blocks per
// row (Nt / OBW).
// Runtime: in0 address, first output tile row. Semaphores: 0 in0 ready, 1 in0 valid.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_in0 = get_compile_time_arg_val(0);
  constexpr uint32_t Mt = get_compile_time_arg_val(1);
  constexpr uint32_t Kt = get_compile_time_arg_val(2);
  constexpr uint32_t Kb = get_compile_time_arg_val(3);
  constexpr uint32_t Kt_total = get_compile_time_arg_val(4);
  constexpr uint32_t cols = get_compile_time_arg_val(5);
  constexpr bool in0_in_l1 = get_compile_time_arg_val(6) == 1;
  constexpr uint32_t OBH = get_compile_time_arg_val(7);
  constexpr uint32_t blocks_w = get_compile_time_arg_val(8);
  constexpr uint32_t receivers = cols - 1;
  const uint32_t in0_address = get_arg_val<uint32_t>(0);
  const uint32_t row0 = get_arg_val<uint32_t>(1);

  const uint32_t my_row = my_y[noc_index];
  // The row's cores; on NoC 1 (this kernel's NoC in tt-metal's matmul) from the far end.
  auto row_rectangle = [&](uint32_t address) {
    return noc_index == 1 ? get_noc_multicast_addr(cols - 1, my_row, 0, my_row, address)
                          : get_noc_multicast_addr(0, my_row, cols - 1, my_row, address);
  };
  const uint32_t ready_address = get_semaphore(0);
  const uint32_t valid_address = get_semaphore(1);
  volatile tt_l1_ptr uint32_t* ready = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(ready_address);
  volatile tt_l1_ptr uint32_t* valid = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(valid_address);
  const uint32_t tile_bytes = get_tile_size(cb_in0);
  const InterleavedAddrGenFast<true> in0 = {
      .bank_base_address = in0_address, .page_size = tile_bytes, .data_format = get_dataformat(cb_in0)};

  for (uint32_t out_block = 0; out_block < (Mt / OBH) * blocks_w; ++out_block) {
    const uint32_t first_row = row0 + out_block / blocks_w * OBH;
    for (uint32_t block = 0; block < Kt / Kb; ++block) {
      const uint32_t sender_col = block % cols;
      const bool sender = my_x[noc_index] == sender_col;
      cb_reserve_back(cb_in0, OBH * Kb);
      const uint32_t block_address = get_write_ptr(cb_in0);
      if (sender) {
        if constexpr (!in0_in_l1) {
          uint32_t l1 = block_address;
          for (uint32_t h = 0; h < OBH; ++h)
            for (uint32_t k = 0; k < Kb; ++k, l1 += tile_bytes)
              noc_async_read_tile((first_row + h) * Kt_total + block * Kb + k, in0, l1);
          noc_async_read_barrier();
        }
        if (receivers > 0) {
          noc_semaphore_wait(ready, receivers);
          noc_semaphore_set(ready, 0);
          noc_async_write_multicast(block_address, row_rectangle(block_address), OBH * Kb * tile_bytes, receivers);
          *valid = 1;
          noc_semaphore_set_multicast(valid_address, row_rectangle(valid_address), receivers);
          noc_async_write_barrier();
        }
      } else {
        noc_semaphore_set(valid, 0);
        noc_semaphore_inc(get_noc_addr(sender_col, my_row, ready_address), 1);
        noc_semaphore_wait(valid, 1);
      }
      cb_push_back(cb_in0, OBH * Kb);
    }
  }
}
