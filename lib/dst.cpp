#include "dst.h"

#include <algorithm>
#include <string>

#include "errors.h"

namespace ttemu {

namespace {
const char* phase_name(DstRegisters::Phase phase) {
  switch (phase) {
    case DstRegisters::Phase::Released: return "released (no tile_regs_acquire)";
    case DstRegisters::Phase::Acquired: return "acquired by math";
    case DstRegisters::Phase::Committed: return "committed (waiting for tile_regs_wait)";
    case DstRegisters::Phase::Waited: return "held by pack (after tile_regs_wait)";
  }
  return "?";
}
}  // namespace

void DstRegisters::configure(int register_tiles, bool fp32, bool full_sync) {
  fp32_ = fp32;
  full_sync_ = full_sync;
  capacity_ = full_sync ? register_tiles : register_tiles / 2;
  values_.assign(static_cast<size_t>(capacity_) * kTileElements, 0.0f);
  written_.assign(capacity_, false);
}

const char* DstRegisters::describe_mode() const {
  if (fp32_) return full_sync_ ? "32-bit DST, full sync" : "32-bit DST, half sync";
  return full_sync_ ? "16-bit DST, full sync" : "16-bit DST, half sync";
}

void DstRegisters::check_released_at_end() const {
  if (phase_ != Phase::Released)
    fail(std::string("the compute kernel returned while DST is ") + phase_name(phase_) +
         "; every tile_regs_acquire needs its commit, wait and release");
}

void DstRegisters::acquire() {
  if (phase_ != Phase::Released)
    fail(std::string("tile_regs_acquire while DST is ") + phase_name(phase_) +
         "; release the previous section first");
  // The packer clears DST after packing on hardware; a new section starts from zeros.
  std::fill(values_.begin(), values_.end(), 0.0f);
  std::fill(written_.begin(), written_.end(), false);
  phase_ = Phase::Acquired;
}

void DstRegisters::commit() {
  if (phase_ != Phase::Acquired)
    fail(std::string("tile_regs_commit while DST is ") + phase_name(phase_) + "; expected acquired");
  phase_ = Phase::Committed;
}

void DstRegisters::wait() {
  if (phase_ != Phase::Committed)
    fail(std::string("tile_regs_wait while DST is ") + phase_name(phase_) + "; expected committed");
  phase_ = Phase::Waited;
}

void DstRegisters::release() {
  if (phase_ != Phase::Waited)
    fail(std::string("tile_regs_release while DST is ") + phase_name(phase_) + "; expected tile_regs_wait first");
  phase_ = Phase::Released;
}

void DstRegisters::check_index(uint32_t index, const char* call) const {
  if (index >= static_cast<uint32_t>(capacity_))
    fail(std::string(call) + ": DST index " + std::to_string(index) + " is beyond DST capacity " +
         std::to_string(capacity_) + " tiles (" + describe_mode() + ")");
}

float* DstRegisters::math_tile(uint32_t index, const char* call) {
  if (phase_ != Phase::Acquired)
    fail(std::string(call) + " touches DST outside tile_regs_acquire..tile_regs_commit (DST is " +
         phase_name(phase_) + ")");
  check_index(index, call);
  return values_.data() + static_cast<size_t>(index) * kTileElements;
}

const float* DstRegisters::pack_tile(uint32_t index, const char* call) {
  if (phase_ != Phase::Waited)
    fail(std::string(call) + " reads DST outside tile_regs_wait..tile_regs_release (DST is " + phase_name(phase_) +
         ")");
  check_index(index, call);
  return values_.data() + static_cast<size_t>(index) * kTileElements;
}

void DstRegisters::store(uint32_t index) {
  if (!fp32_) round_tile_to_bf16(values_.data() + static_cast<size_t>(index) * kTileElements, kTileElements);
  written_[index] = true;
}

}  // namespace ttemu
