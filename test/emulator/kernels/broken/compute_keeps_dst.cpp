// BROKEN (DST protocol): acquires DST and returns without committing or releasing it.
#include "api/compute/reg_api.h"

void kernel_main() { tile_regs_acquire(); }
