// compute_kernel_hw_startup: configures unpacker, math and packer for the kernel's first
// operands; tt-metal 0.81.1 asks every compute kernel to call it once before any init.
#pragma once

#include "ttemu/kernel_common.h"

ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb) {
  (void)icb0, (void)icb1, (void)ocb;
  ttemu::init(ttemu::InitKind::HwStartup);
}
ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t ocb) { compute_kernel_hw_startup(icb0, icb0, ocb); }
