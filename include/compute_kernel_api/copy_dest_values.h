// copy_dest_values: DST[idst0] = DST[idst1], a tile copy inside DST on the SFPU
// (destination first, as in tt-metal's compute_kernel_api/copy_dest_values.h). Values
// move unchanged: NaN payloads, -0 and infinities included.
#pragma once

#include "compute_kernel_api/eltwise_unary/eltwise_unary.h"

ALWI void copy_dest_values_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void copy_dest_values(uint32_t idst0, uint32_t idst1) { ttemu::copy_dest_values(idst0, idst1); }
