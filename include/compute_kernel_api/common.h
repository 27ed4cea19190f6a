// tt-metal compute kernel basics: entry-point macros, arguments, CB calls.
#pragma once

#include "ttemu/kernel_common.h"

// tt-metal defines these per TRISC build; the emulator runs the compute kernel once
// per core (one thread doing unpack, math and pack), so all three wrap plain code.
#ifndef NAMESPACE
#define NAMESPACE ttemu_compute_kernel
#endif
#ifndef MAIN
#define MAIN compute_main()
#endif
#define UNPACK(x) x
#define MATH(x) x
#define PACK(x) x

namespace ckernel {}
using namespace ckernel;

ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb) {
  (void)icb0, (void)icb1, (void)ocb;
  ttemu::init(ttemu::InitKind::HwStartup);
}
