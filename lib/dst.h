// The DST register file of one core and its sync protocol.
//
// Capacity follows the device ([dst]: on Wormhole 16 tiles of 16-bit data, 8 of 32-bit
// data with fp32_dest_acc_en) and ComputeConfig (half sync gives a section half of it). Values are held as fp32 and rounded to bf16 on
// every write when DST is 16-bit. The protocol is MATH: tile_regs_acquire, math,
// tile_regs_commit; PACK: tile_regs_wait, pack_tile, tile_regs_release. Math outside
// acquire..commit, pack outside wait..release, and indices beyond capacity are errors.
#pragma once

#include <cstdint>
#include <vector>

#include "numerics.h"

namespace ttemu {

class DstRegisters {
 public:
  enum class Phase { Released, Acquired, Committed, Waited };

  // `register_tiles`: tiles the whole register holds in the chosen (16/32-bit) format.
  void configure(int register_tiles, bool fp32, bool full_sync);
  int capacity() const { return capacity_; }

  // Fails if a section is still held when the compute kernel returns.
  void check_released_at_end() const;
  void acquire();
  void commit();
  void wait();
  void release();

  // A tile the math side reads or writes (checks phase and index).
  float* math_tile(uint32_t index, const char* call);
  // A tile the pack side reads (checks phase and index).
  const float* pack_tile(uint32_t index, const char* call);
  // Round a freshly written tile to DST's format and mark it written.
  void store(uint32_t index);
  // Mark a tile written whose rounding a deferred matmul does (math_lanes.h).
  void mark_written(uint32_t index) { written_[index] = true; }
  bool rounds_to_bf16() const { return !fp32_; }
  // Whether the tile was written since tile_regs_acquire (reduce MAX starts from it).
  bool written(uint32_t index) const { return written_[index]; }

 private:
  void check_index(uint32_t index, const char* call) const;
  const char* describe_mode() const;

  int capacity_ = 8;
  bool fp32_ = false;
  bool full_sync_ = false;
  Phase phase_ = Phase::Released;
  std::vector<float> values_;
  std::vector<bool> written_;
};

}  // namespace ttemu
