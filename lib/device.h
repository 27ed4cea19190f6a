// The emulated device: a grid of cores, interleaved DRAM, the NoC, and the scheduler
// that runs every core's reader, compute and writer kernels.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core.h"
#include "cost_table.h"
#include "device_description.h"
#include "dram.h"
#include "math_lanes.h"
#include "noc.h"
#include "scheduler.h"

namespace ttemu {

// What one program asks of the device: the grid it runs on and the compute configuration.
struct DeviceConfig {
  int rows = 1;  // at most the description's compute grid
  int cols = 1;
  MathFidelity math_fidelity = MathFidelity::HiFi2;
  bool fp32_dest_acc_en = false;
  bool math_approx_mode = false;
  bool dst_full_sync_en = false;
};

struct KernelSpec {
  std::string name;
  ThreadKind kind;
  void (*entry)();
  // The NoC the kernel's RISC uses, its calls' default (tt-metal's DataMovementConfig::noc,
  // `noc_index`); -1: the description's for its kind (reader_noc, writer_noc).
  int noc = -1;
};

class Device {
 public:
  // Semaphores sit in the reserved low L1 (below description.l1_reserved_bytes, where
  // the CBs start).
  static constexpr uint32_t kSemaphoreOffset = 0x1000;
  static constexpr uint32_t kSemaphoreStride = 16;
  static constexpr uint32_t kMaxSemaphores = 32;

  Device(const DeviceConfig& config, DeviceDescription description);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // ---- program setup ----
  // CBs get the same L1 offset on every core; over-allocating L1 is an error.
  // `shares_l1_with` >= 0: the CB takes that CB's L1 instead of its own (one configured
  // before it with L1 of its own).
  void add_cb(uint32_t id, uint32_t num_pages, uint32_t page_size, DataFormat format, int shares_l1_with = -1);
  void set_semaphores(const std::vector<uint32_t>& initial_values);
  uint32_t add_buffer(const std::string& name, DataFormat format, uint32_t num_pages);
  Dram& dram() { return dram_; }
  void add_kernel(const KernelSpec& kernel);
  void set_runtime_args(const std::string& kernel, int row, int col, std::vector<uint32_t> args);

  // Runs every kernel on every core to completion; a deadlock is reported and fails, and
  // so does a run that ends with pages pushed to a CB that no thread waited for (data
  // never used).
  void run();
  std::string report_json() const;

  // ---- used by the kernel API while running ----
  static Device& active();
  const DeviceConfig& config() const { return config_; }
  const DeviceDescription& description() const { return description_; }
  const CostTable& costs() const { return description_.cost; }
  uint32_t l1_bytes() const { return description_.l1_bytes; }
  Scheduler& scheduler() { return scheduler_; }
  NocTiming& noc() { return noc_; }
  MathLanes& math_lanes() { return *math_lanes_; }
  KernelThread& thread();
  // Remembers `call` (a string literal) as the calling thread's last kernel API call,
  // for the report of a run stopped at its time limit (SIGTERM from the launcher).
  void note_api_call(const char* call);
  Core& core_at_noc(uint32_t x, uint32_t y, const char* call);
  Core& core(int index) { return *cores_[index]; }
  // The core and offset of an L1 address handed out by get_write_ptr & co.
  bool locate_l1(uint32_t address, int* core_index, uint32_t* offset) const;
  uint32_t l1_address(const Core& core, uint32_t offset) const;
  bool overlaps_semaphores(uint32_t offset, uint32_t size) const;

 private:
  std::string context_label() const;
  void check_pushed_pages_used();

  DeviceConfig config_;
  DeviceDescription description_;
  Scheduler scheduler_;
  Dram dram_;
  NocTiming noc_;
  std::unique_ptr<MathLanes> math_lanes_;
  uint8_t* l1_region_ = nullptr;
  size_t l1_region_bytes_ = 0;
  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<KernelSpec> kernels_;
  std::vector<std::vector<std::vector<uint32_t>>> runtime_args_;  // [kernel][core]
  uint32_t next_cb_offset_;
  std::vector<bool> cb_shares_l1_;  // by CB id: configured with another CB's L1
  uint32_t num_semaphores_ = 0;
};

}  // namespace ttemu
