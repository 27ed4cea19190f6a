// Sets semaphore 0 of this core to 1 with a plain L1 store (no API call), as a kernel
// may on hardware; another thread of the core waits for it with noc_semaphore_wait.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  *reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0)) = 1;
}
