// The device the emulator models, read from its description file
// (python/ttlang/device/<name>.toml, the one place for hardware facts; the launcher
// passes its path). The reader takes the TOML subset those files use: [table] headers,
// `key = value` with a number, a "string", true/false or an array of numbers (nested,
// possibly over several lines), and # comments. Every key below is required; an unknown
// key in [noc] or [cost] is an error (a typo would otherwise go unnoticed).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ttemu {

// Cycles per kernel API call ([cost]); see docs/cost_model.md for each entry's source.
struct CostTable {
  uint64_t matmul_tile_per_phase;
  // A matmul tile with an operand of the format never takes fewer cycles than this.
  uint64_t matmul_tile_floor_bf16;
  uint64_t matmul_tile_floor_fp32;
  uint64_t matmul_tile_floor_bfp8_b;
  uint64_t eltwise_add_tile;
  uint64_t eltwise_mul_tile_per_phase;
  uint64_t reduce_tile_per_phase;
  uint64_t transpose_tile;
  uint64_t copy_tile;
  uint64_t unary_bcast_tile;
  uint64_t exp_approx_tile;
  uint64_t exp_tile;
  uint64_t recip_tile;
  uint64_t sqrt_tile;
  uint64_t sfpu_simple_tile;
  uint64_t sfpu_div_tile;
  uint64_t sfpu_where_tile;
  uint64_t sfpu_copy_dest_tile;
  double pack_bytes_per_cycle;
  uint64_t init;
  uint64_t reconfig;  // a data-format reconfiguration site
  uint64_t tile_regs_sync;
  uint64_t cb_call;
  uint64_t semaphore_call;
  uint64_t fill_causal_mask_tile;
  uint64_t fill_uniform_tile;
};

// The NoC's widths, rates and latencies ([noc]); see noc.h for how they combine.
struct NocParameters {
  double link_bytes_per_cycle;
  uint32_t max_packet_bytes;
  uint64_t hop_cycles;
  int reader_noc, writer_noc;  // the NoC of the reader's / writer's RISC (its calls' default)
  uint64_t issue_cycles;        // a read, an atomic or a semaphore message
  uint64_t write_issue_cycles;  // a write or a multicast write
  uint64_t message_cycles;
  double dram_read_bytes_per_cycle;
  uint64_t dram_read_latency_cycles;
  double dram_write_bytes_per_cycle;
  uint64_t dram_write_latency_cycles;
  uint32_t dram_burst_bytes;
  uint64_t dram_partial_write_cycles;
  double core_read_bytes_per_cycle;
  uint64_t core_read_latency_cycles;
  double core_write_bytes_per_cycle;
  uint64_t core_write_latency_cycles;
  double multicast_bytes_per_cycle;
  uint64_t multicast_latency_cycles;
  uint64_t multicast_linked_gap_cycles;
  uint64_t multicast_unlinked_gap_cycles;
  // Cycles the sender's NoC port takes per write response (one per destination).
  uint64_t write_response_cycles;
};

struct DeviceDescription {
  std::string name;
  std::string path;
  double clock_hz;
  // NoC coordinates: extent, and of every logical compute core's column and row.
  int noc_size_x, noc_size_y;
  std::vector<int> column_x;  // logical column -> NoC x
  std::vector<int> row_y;     // logical row -> NoC y (harvested and dispatch rows left out)
  int compute_rows, compute_cols;
  uint32_t l1_bytes, l1_reserved_bytes, max_cbs, cb_alignment;
  int dst_tiles_16bit, dst_tiles_32bit;
  int dram_banks;
  uint64_t dram_bank_bytes;
  std::vector<std::pair<int, int>> dram_bank_noc;  // (x, y) of each bank
  double dram_bank_bytes_per_cycle;
  NocParameters noc;
  CostTable cost;
};

// Reads a description file; a missing, malformed or unknown entry is a setup error.
DeviceDescription load_device_description(const std::string& path);

}  // namespace ttemu
