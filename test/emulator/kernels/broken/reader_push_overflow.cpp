// BROKEN (CB overflow): reserves one page of cb_a, then pushes three into a 2-page CB.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  cb_reserve_back(cb_a, 1);
  cb_push_back(cb_a, 3);
}
