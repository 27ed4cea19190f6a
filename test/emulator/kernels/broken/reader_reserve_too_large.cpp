// BROKEN (CB size): reserves 3 pages of a 2-page CB.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb_a = get_compile_time_arg_val(0);
  cb_reserve_back(cb_a, 3);
}
