// Waits for semaphore 0 to become 1: BROKEN (deadlock) when nobody ever signals it.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  volatile tt_l1_ptr uint32_t* semaphore = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0));
  noc_semaphore_wait(semaphore, 1);
}
