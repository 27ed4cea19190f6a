#include "noc.h"

#include <algorithm>
#include <cmath>

namespace ttemu {

uint64_t encode_core_address(uint32_t x, uint32_t y, uint32_t l1_offset) {
  return (1ull << 62) | (static_cast<uint64_t>(y & 0xff) << 40) | (static_cast<uint64_t>(x & 0xff) << 32) |
         l1_offset;
}

uint64_t encode_dram_address(uint32_t bank, uint32_t bank_address) {
  return (2ull << 62) | (static_cast<uint64_t>(bank & 0xff) << 32) | bank_address;
}

uint64_t encode_multicast_address(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
                                  uint32_t l1_offset) {
  return (3ull << 62) | (static_cast<uint64_t>(y_end & 0x3f) << 56) | (static_cast<uint64_t>(x_end & 0xff) << 48) |
         (static_cast<uint64_t>(y_start & 0xff) << 40) | (static_cast<uint64_t>(x_start & 0xff) << 32) | l1_offset;
}

NocAddress decode_noc_address(uint64_t noc_address) {
  NocAddress decoded;
  decoded.kind = static_cast<NocAddress::Kind>(noc_address >> 62);
  decoded.address = static_cast<uint32_t>(noc_address);
  decoded.x = (noc_address >> 32) & 0xff;
  decoded.y = (noc_address >> 40) & 0xff;
  if (decoded.kind == NocAddress::Kind::Dram) decoded.bank = decoded.x;
  if (decoded.kind == NocAddress::Kind::Multicast) {
    decoded.x_end = (noc_address >> 48) & 0xff;
    decoded.y_end = (noc_address >> 56) & 0x3f;
  }
  return decoded;
}

NocTiming::NocTiming(int num_cores, const DeviceDescription& device)
    : params_(device.noc),
      bank_bytes_per_cycle_(device.dram_bank_bytes_per_cycle),
      port_in_free_(num_cores, 0.0),
      port_out_free_(num_cores, 0.0),
      bank_free_(device.dram_banks, 0.0) {}

double NocTiming::occupy(double& free_at, uint64_t now, double cycles) {
  free_at = std::max(free_at, static_cast<double>(now)) + cycles;
  return free_at;
}

uint64_t NocTiming::dram_read(int core, uint32_t bank, uint32_t bytes, uint64_t now) {
  dram_bytes_read_ += bytes;
  double bank_done = occupy(bank_free_[bank], now, bytes / bank_bytes_per_cycle_);
  double port_done = occupy(port_in_free_[core], now, bytes / params_.port_bytes_per_cycle);
  return static_cast<uint64_t>(std::ceil(std::max(bank_done, port_done))) + params_.dram_latency_cycles;
}

uint64_t NocTiming::dram_write(int core, uint32_t bank, uint32_t bytes, uint64_t now) {
  dram_bytes_written_ += bytes;
  double port_done = occupy(port_out_free_[core], now, bytes / params_.port_bytes_per_cycle);
  double bank_done = occupy(bank_free_[bank], now, bytes / bank_bytes_per_cycle_);
  return static_cast<uint64_t>(std::ceil(std::max(bank_done, port_done))) + params_.dram_latency_cycles;
}

uint64_t NocTiming::core_read(int core, uint32_t hops, uint32_t bytes, uint64_t now) {
  double port_done = occupy(port_in_free_[core], now, bytes / params_.port_bytes_per_cycle);
  return static_cast<uint64_t>(std::ceil(port_done)) + 2 * message_latency(hops);
}

uint64_t NocTiming::core_write(int core, uint32_t hops, uint32_t bytes, uint64_t now) {
  double port_done = occupy(port_out_free_[core], now, bytes / params_.port_bytes_per_cycle);
  return static_cast<uint64_t>(std::ceil(port_done)) + message_latency(hops);
}

uint64_t NocTiming::message_latency(uint32_t hops) const {
  return params_.endpoint_cycles + params_.hop_cycles * hops;
}

}  // namespace ttemu
