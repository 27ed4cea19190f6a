// The NoC: 64-bit NoC addresses and the transfer timing model.
//
// A NoC address holds a target in its upper 32 bits and an address in the lower 32
// (so kernels may add byte offsets to it, as on hardware):
//   bits 62-63: 1 = one core, 2 = a DRAM bank, 3 = a multicast rectangle of cores;
//   core: x in bits 32-39, y in 40-47; DRAM: bank in 32-39; multicast: x_start 32-39,
//   y_start 40-47, x_end 48-55, y_end 56-61. For cores the low half is an L1 offset.
//
// Timing (docs/cost_model.md; every rate and latency from the device description):
// a transfer streams at its path's rate (DRAM read/write, core read/write, multicast)
// and, while it streams, holds the receiving or sending core's NoC port, the DRAM bank
// it touches, and every link of its route. Routes are dimension-order on a torus of the
// physical NoC grid: NoC 0 runs +x then +y, NoC 1 runs -y then -x. A transfer travels on
// the NoC its caller names (the issuing kernel's NoC, or the call's `noc` argument):
// a read's data from the source to the reader, a write's from the writer to its target.
// Each resource serves its transfers in issue order, one at a time, and a transfer is
// through when its busiest resource is, so transfers sharing a link queue behind each
// other (two cores reading through one link take twice as long).
// A write also holds the writer's port for one response per destination (multicasts:
// every core of the rectangle but the sender).
// It completes a latency later: a fixed part per path plus hop_cycles per hop of the
// round trip (request or acknowledgement and data).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
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
  // `core_positions`: the physical NoC (x, y) of every core, by core index.
  NocTiming(const DeviceDescription& device, std::vector<std::pair<int, int>> core_positions);

  // Each returns the cycle at which the transfer, issued at `now` on NoC `noc` (0 or 1),
  // has completed.
  uint64_t dram_read(int core, int noc, uint32_t bank, uint32_t bytes, uint64_t now);
  uint64_t dram_write(int core, int noc, uint32_t bank, uint32_t bytes, uint64_t now);
  uint64_t core_read(int core, int noc, int source, uint32_t bytes, uint64_t now);
  uint64_t core_write(int core, int noc, int target, uint32_t bytes, uint64_t now);
  // One multicast to `targets`; linked multicasts keep the path between packets.
  uint64_t multicast_write(int core, int noc, const std::vector<int>& targets, uint32_t bytes, bool linked,
                           uint64_t now);
  // When a small message (a semaphore update) sent at `now` on `noc` reaches `target`:
  // never before the core's earlier writes on that NoC have arrived (writes on a NoC
  // stay in order).
  uint64_t message_arrival(int core, int noc, int target, uint64_t now) const;

  uint64_t dram_bytes_read() const { return dram_bytes_read_; }
  uint64_t dram_bytes_written() const { return dram_bytes_written_; }

 private:
  using Position = std::pair<int, int>;
  // Ids of the links a transfer on `noc` from `from` to `to` crosses (cached).
  const std::vector<int>& route(int noc, Position from, Position to);
  int hops(int noc, Position from, Position to) const;
  int round_trip_hops(int noc, Position from, Position to) const;
  // Every destination of a (non-posted) write answers with a response packet, which
  // the writer's NoC port takes one at a time (write_response_cycles each, from `now`);
  // returns when the last is taken. Small multicasts to many cores are bound by it.
  double responses(int core, uint32_t destinations, uint64_t now);
  // Records when the data of a write that left `core` on `noc` at `end` arrives.
  void arrive(int core, int noc, double end, int one_way_hops);
  // Occupies `port` and `links` for `busy` cycles and `bank` (when given) for
  // `bank_busy`, each from when it is free (and not before `now`); returns when the
  // data is through all of them.
  double stream(double& port, double* bank, double bank_rate, const std::vector<int>& links, double busy,
                uint64_t now);

  NocParameters params_;
  double bank_bytes_per_cycle_;
  int width_, height_;
  std::vector<Position> cores_;
  std::vector<Position> banks_;
  std::vector<double> port_in_free_;
  std::vector<double> port_out_free_;
  std::vector<double> bank_free_;
  std::vector<double> writes_arrive_;  // [core][noc]: when its last write's data arrives
  std::vector<double> link_free_;  // [noc][y][x][dimension]
  std::unordered_map<uint64_t, std::vector<int>> routes_;
  std::vector<int> multicast_links_;  // scratch for multicast_write
  uint64_t dram_bytes_read_ = 0;
  uint64_t dram_bytes_written_ = 0;
};

}  // namespace ttemu
