// BROKEN (hang): spins forever without calling the API.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  volatile bool spinning = true;
  while (spinning) {
  }
}
