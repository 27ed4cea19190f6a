// BROKEN (CB size): waits for 3 pages of a 2-page CB, which can never hold them.
#include "api/compute/common.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  cb_wait_front(cb_a, 3);
}
