// Circular-buffer calls for compute kernels (declared in ttemu/kernel_common.h).
#pragma once

#include "api/compute/common.h"
