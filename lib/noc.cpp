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

NocTiming::NocTiming(const DeviceDescription& device, std::vector<Position> core_positions)
    : params_(device.noc),
      bank_bytes_per_cycle_(device.dram_bank_bytes_per_cycle),
      width_(device.noc_size_x),
      height_(device.noc_size_y),
      cores_(std::move(core_positions)),
      banks_(device.dram_bank_noc),
      port_in_free_(cores_.size(), 0.0),
      port_out_free_(cores_.size(), 0.0),
      bank_free_(banks_.size(), 0.0),
      writes_arrive_(2 * cores_.size(), 0.0),
      link_free_(static_cast<size_t>(2 * width_ * height_ * 2), 0.0) {}

// NoC 0 moves +x then +y, NoC 1 -y then -x, each wrapping around the torus.
const std::vector<int>& NocTiming::route(int noc, Position from, Position to) {
  uint64_t key = (static_cast<uint64_t>(noc) << 48) | (static_cast<uint64_t>(from.first) << 36) |
                 (static_cast<uint64_t>(from.second) << 24) | (static_cast<uint64_t>(to.first) << 12) |
                 static_cast<uint64_t>(to.second);
  auto found = routes_.find(key);
  if (found != routes_.end()) return found->second;
  std::vector<int> links;
  int x = from.first, y = from.second;
  auto link = [&](int dimension) { return ((noc * height_ + y) * width_ + x) * 2 + dimension; };
  if (noc == 0) {
    for (; x != to.first; x = (x + 1) % width_) links.push_back(link(0));
    for (; y != to.second; y = (y + 1) % height_) links.push_back(link(1));
  } else {
    for (; y != to.second; y = (y + height_ - 1) % height_) links.push_back(link(1));
    for (; x != to.first; x = (x + width_ - 1) % width_) links.push_back(link(0));
  }
  return routes_.emplace(key, std::move(links)).first->second;
}

int NocTiming::hops(int noc, Position from, Position to) const {
  int dx = noc == 0 ? to.first - from.first : from.first - to.first;
  int dy = noc == 0 ? to.second - from.second : from.second - to.second;
  return (dx + width_) % width_ + (dy + height_) % height_;
}

int NocTiming::round_trip_hops(int noc, Position from, Position to) const {
  return hops(noc, from, to) + hops(noc, to, from);
}

double NocTiming::stream(double& port, double* bank, double bank_busy, const std::vector<int>& links, double busy,
                         uint64_t now) {
  const double issued = static_cast<double>(now);
  auto occupy = [issued](double& free_at, double cycles) {
    free_at = std::max(free_at, issued) + cycles;
    return free_at;
  };
  double end = occupy(port, busy);
  if (bank) end = std::max(end, occupy(*bank, bank_busy));
  for (int id : links) end = std::max(end, occupy(link_free_[id], busy));
  return end;
}

namespace {
uint64_t cycles(double time) { return static_cast<uint64_t>(std::ceil(time)); }
double path_rate(double endpoint_rate, const NocParameters& params) {
  return std::min(endpoint_rate, params.link_bytes_per_cycle);
}
}  // namespace

uint64_t NocTiming::dram_read(int core, int noc, uint32_t bank, uint32_t bytes, uint64_t now) {
  dram_bytes_read_ += bytes;
  double end = stream(port_in_free_[core], &bank_free_[bank], bytes / bank_bytes_per_cycle_,
                      route(noc, banks_[bank], cores_[core]),
                      bytes / path_rate(params_.dram_read_bytes_per_cycle, params_), now);
  return cycles(end) + params_.dram_read_latency_cycles +
         params_.hop_cycles * round_trip_hops(noc, cores_[core], banks_[bank]);
}

uint64_t NocTiming::dram_write(int core, int noc, uint32_t bank, uint32_t bytes, uint64_t now) {
  dram_bytes_written_ += bytes;
  double busy = bytes / path_rate(params_.dram_write_bytes_per_cycle, params_);
  double end = stream(port_out_free_[core], &bank_free_[bank], bytes / bank_bytes_per_cycle_,
                      route(noc, cores_[core], banks_[bank]), busy, now);
  // A write shorter than a DRAM burst keeps the next write waiting as long as a burst.
  if (bytes < params_.dram_burst_bytes)
    port_out_free_[core] = std::max(port_out_free_[core], end - busy + params_.dram_partial_write_cycles);
  end = std::max(end, responses(core, 1, now));
  arrive(core, noc, end, hops(noc, cores_[core], banks_[bank]));
  return cycles(end) + params_.dram_write_latency_cycles +
         params_.hop_cycles * round_trip_hops(noc, cores_[core], banks_[bank]);
}

uint64_t NocTiming::core_read(int core, int noc, int source, uint32_t bytes, uint64_t now) {
  double end = stream(port_in_free_[core], nullptr, 0, route(noc, cores_[source], cores_[core]),
                      bytes / path_rate(params_.core_read_bytes_per_cycle, params_), now);
  return cycles(end) + params_.core_read_latency_cycles +
         params_.hop_cycles * round_trip_hops(noc, cores_[core], cores_[source]);
}

uint64_t NocTiming::core_write(int core, int noc, int target, uint32_t bytes, uint64_t now) {
  double end = stream(port_out_free_[core], nullptr, 0, route(noc, cores_[core], cores_[target]),
                      bytes / path_rate(params_.core_write_bytes_per_cycle, params_), now);
  end = std::max(end, responses(core, 1, now));
  arrive(core, noc, end, hops(noc, cores_[core], cores_[target]));
  return cycles(end) + params_.core_write_latency_cycles +
         params_.hop_cycles * round_trip_hops(noc, cores_[core], cores_[target]);
}

uint64_t NocTiming::multicast_write(int core, int noc, const std::vector<int>& targets, uint32_t bytes,
                                    bool linked, uint64_t now) {
  // The multicast tree: the union of the routes to every target.
  multicast_links_.clear();
  int farthest = 0, farthest_one_way = 0;
  for (int target : targets) {
    const std::vector<int>& links = route(noc, cores_[core], cores_[target]);
    multicast_links_.insert(multicast_links_.end(), links.begin(), links.end());
    farthest = std::max(farthest, round_trip_hops(noc, cores_[core], cores_[target]));
    farthest_one_way = std::max(farthest_one_way, hops(noc, cores_[core], cores_[target]));
  }
  std::sort(multicast_links_.begin(), multicast_links_.end());
  multicast_links_.erase(std::unique(multicast_links_.begin(), multicast_links_.end()), multicast_links_.end());
  // After each packet the sender's port waits `gap` before the next one: an unlinked
  // multicast sets its path up again, a linked one keeps it.
  uint32_t packets = std::max(1u, (bytes + params_.max_packet_bytes - 1) / params_.max_packet_bytes);
  double gap = linked ? params_.multicast_linked_gap_cycles : params_.multicast_unlinked_gap_cycles;
  double busy = bytes / path_rate(params_.multicast_bytes_per_cycle, params_) + (packets - 1) * gap;
  double end = stream(port_out_free_[core], nullptr, 0, multicast_links_, busy, now);
  port_out_free_[core] += gap;
  end = std::max(end, responses(core, static_cast<uint32_t>(targets.size()), now));
  arrive(core, noc, end, farthest_one_way);
  return cycles(end) + params_.multicast_latency_cycles + params_.hop_cycles * farthest;
}

double NocTiming::responses(int core, uint32_t destinations, uint64_t now) {
  double& port = port_in_free_[core];
  port = std::max(port, static_cast<double>(now)) + static_cast<double>(destinations * params_.write_response_cycles);
  return port;
}

void NocTiming::arrive(int core, int noc, double end, int one_way_hops) {
  double& arrives = writes_arrive_[2 * core + noc];
  arrives = std::max(arrives, end + params_.message_cycles + params_.hop_cycles * one_way_hops);
}

uint64_t NocTiming::message_arrival(int core, int noc, int target, uint64_t now) const {
  double alone = static_cast<double>(now + params_.message_cycles + params_.hop_cycles * hops(noc, cores_[core], cores_[target]));
  return cycles(std::max(alone, writes_arrive_[2 * core + noc]));
}

}  // namespace ttemu
