// tt-metal compute kernel basics: arguments, CB calls, hardware startup. A compute
// kernel is `void kernel_main()`, as a data-movement kernel is.
#pragma once

#include "ttemu/kernel_common.h"

// tt-metal builds a compute kernel three times (TRISC0/1/2: unpack, math, pack) and each
// macro keeps its argument in one of them; the emulator runs the kernel once per core
// (one thread doing unpack, math and pack), so all three wrap plain code.
#define UNPACK(x) x
#define MATH(x) x
#define PACK(x) x

namespace ckernel {}
using namespace ckernel;

#include "api/compute/compute_kernel_hw_startup.h"
