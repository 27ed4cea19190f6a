// The DST register protocol: MATH acquires and commits, PACK waits and releases.
#pragma once

#include "api/compute/common.h"

ALWI void tile_regs_acquire() { ttemu::tile_regs_acquire(); }
ALWI void tile_regs_commit() { ttemu::tile_regs_commit(); }
ALWI void tile_regs_wait() { ttemu::tile_regs_wait(); }
ALWI void tile_regs_release() { ttemu::tile_regs_release(); }
// The older names of the same protocol.
ALWI void acquire_dst() {
  ttemu::tile_regs_acquire();
}
ALWI void release_dst() {
  ttemu::tile_regs_commit();
  ttemu::tile_regs_wait();
  ttemu::tile_regs_release();
}
