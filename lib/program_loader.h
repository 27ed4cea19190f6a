// Loading a program description written by the Python launcher (ttlang.runtime):
// a text file, one directive per line, in a work directory:
//   device <path of the device description (python/ttlang/device/<name>.toml)>
//   grid <rows> <cols>
//   compute_config <LoFi|HiFi2|HiFi3|HiFi4> <fp32_dest_acc_en> <math_approx_mode> <dst_full_sync_en>
//   cb <id> <num_pages> <page_size> <bf16|fp32|bfp8_b>
//   buffer <index> <name> <bf16|fp32|bfp8_b> <num_pages> <is_input> <is_output>
//   semaphores <initial value>...
//   kernel <name> <reader|compute|writer> <path of the kernel's shared object>
//   args <kernel> <row> <col> <arg>...        (an arg is a uint32 or @<buffer name>)
// Input buffer <index> is read from buffer<index>.in (tile pages, hardware layout);
// outputs are written to buffer<index>.out, and the timing report to report.json.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device.h"

namespace ttemu {

struct LoadedProgram {
  std::unique_ptr<Device> device;
  // Output buffers: name and the index that names their file.
  std::vector<std::pair<std::string, int>> outputs;
};

// Builds a device from <work_dir>/program.txt, loads its kernels and input buffers.
LoadedProgram load_program(const std::string& work_dir);
// Writes output buffers and report.json (with the host seconds the run took).
void save_results(const LoadedProgram& program, const std::string& work_dir, double host_seconds);

}  // namespace ttemu
