// BROKEN (CB underflow): waits for one page of cb_a, then pops three (the CB holds 2).
#include "api/compute/common.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  cb_wait_front(cb_a, 1);
  cb_pop_front(cb_a, 3);
}
