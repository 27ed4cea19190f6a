// Multicast one tile from core (0,0) to every core of the grid, with tt-metal's
// semaphore handshake: each receiver reserves its CB page, marks its "valid" semaphore
// 0 and increments the sender's "ready" semaphore; the sender waits until all are
// ready, multicasts the tile into the same CB page on every receiver, then multicasts
// valid = 1. Every core ends with the tile pushed into its CB.
// Compile-time: cb, grid rows, grid cols. Runtime: address of the source tensor.
// Semaphores: 0 = ready count (on the sender), 1 = valid flag (on receivers).
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  constexpr uint32_t rows = get_compile_time_arg_val(1);
  constexpr uint32_t cols = get_compile_time_arg_val(2);
  constexpr uint32_t receivers = rows * cols - 1;
  const uint32_t address = get_arg_val<uint32_t>(0);

  const uint32_t ready_address = get_semaphore(0);
  const uint32_t valid_address = get_semaphore(1);
  volatile tt_l1_ptr uint32_t* ready = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(ready_address);
  volatile tt_l1_ptr uint32_t* valid = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(valid_address);
  const bool sender = my_x[noc_index] == 0 && my_y[noc_index] == 0;

  cb_reserve_back(cb, 1);
  const uint32_t page = get_write_ptr(cb);
  if (sender) {
    const InterleavedAddrGenFast<true> in = {
        .bank_base_address = address, .page_size = get_tile_size(cb), .data_format = get_dataformat(cb)};
    noc_async_read_tile(0, in, page);
    noc_async_read_barrier();
    noc_semaphore_wait(ready, receivers);
    noc_semaphore_set(ready, 0);
    noc_async_write_multicast(page, get_noc_multicast_addr(0, 0, cols - 1, rows - 1, page), get_tile_size(cb),
                              receivers);
    *valid = 1;
    noc_semaphore_set_multicast(valid_address, get_noc_multicast_addr(0, 0, cols - 1, rows - 1, valid_address),
                                receivers);
    noc_async_write_barrier();
  } else {
    noc_semaphore_set(valid, 0);
    noc_semaphore_inc(get_noc_addr(0, 0, ready_address), 1);
    noc_semaphore_wait(valid, 1);
  }
  cb_push_back(cb, 1);
}
