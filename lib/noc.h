// The NoC: 64-bit NoC addresses and the transfer timing model.
//
// A NoC address holds a target in its upper 32 bits and an address in the lower 32
// (so kernels may add byte offsets to it, as on hardware):
//   bits 62-63: 1 = one core, 2 = a DRAM bank, 3 = a multicast rectangle of cores;
//   core: x in bits 32-39, y in 40-47; DRAM: bank in 32-39; multicast: x_start 32-39,
//   y_start 40-47, x_end 48-55, y_end 56-61. For cores the low half is an L1 offset.
// Timing: a transfer occupies the core's NoC port and, for DRAM, the bank (shared by
// every core), then arrives after a latency; rates and latencies come from the device
// description ([noc], [dram]); see docs/cost_model.md.
#pragma once

#include <cstdint>
#include <vector>

#include "device_description.h"

namespace ttemu {

struct NocAddress {
  enum class Kind { Invalid = 0, Core = 1, Dram = 2, Multicast = 3 };
  Kind kind = Kind::Invalid;
  uint32_t x = 0, y = 0, x_end = 0, y_end = 0;  // core, or multicast rectangle
  uint32_t bank = 0;
  uint32_t address = 0;  // L1 offset (cores) or bank address (DRAM)
};

uint64_t encode_core_address(uint32_t x, uint32_t y, uint32_t l1_offset);
uint64_t encode_dram_address(uint32_t bank, uint32_t bank_address);
uint64_t encode_multicast_address(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
                                  uint32_t l1_offset);
NocAddress decode_noc_address(uint64_t noc_address);

class NocTiming {
 public:
  NocTiming(int num_cores, const DeviceDescription& device);

  // Each returns the cycle at which the transfer, issued at `now`, has completed.
  uint64_t dram_read(int core, uint32_t bank, uint32_t bytes, uint64_t now);
  uint64_t dram_write(int core, uint32_t bank, uint32_t bytes, uint64_t now);
  uint64_t core_read(int core, uint32_t hops, uint32_t bytes, uint64_t now);
  uint64_t core_write(int core, uint32_t hops, uint32_t bytes, uint64_t now);
  // Latency of a small message (semaphore update) over `hops`.
  uint64_t message_latency(uint32_t hops) const;

  uint64_t dram_bytes_read() const { return dram_bytes_read_; }
  uint64_t dram_bytes_written() const { return dram_bytes_written_; }

 private:
  static double occupy(double& free_at, uint64_t now, double cycles);

  NocParameters params_;
  double bank_bytes_per_cycle_;
  std::vector<double> port_in_free_;
  std::vector<double> port_out_free_;
  std::vector<double> bank_free_;
  uint64_t dram_bytes_read_ = 0;
  uint64_t dram_bytes_written_ = 0;
};

}  // namespace ttemu
