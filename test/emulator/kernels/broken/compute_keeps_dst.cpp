// BROKEN (DST protocol): acquires DST and returns without committing or releasing it.
#include "compute_kernel_api/reg_api.h"

namespace NAMESPACE {
void MAIN { tile_regs_acquire(); }
}  // namespace NAMESPACE
