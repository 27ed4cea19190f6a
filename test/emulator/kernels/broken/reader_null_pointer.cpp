// BROKEN (crash): writes through a null pointer.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  volatile uint32_t* nowhere = reinterpret_cast<volatile uint32_t*>(get_arg_val<uint32_t>(2) * 0);
  *nowhere = 1;
}
