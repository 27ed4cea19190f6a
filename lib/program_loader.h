// Loading a program written by the Python launcher (ttlang.runtime.emulator) from a work
// directory. Two JSON files (read with json.h), each with "format": 1:
//   program.json  the program exactly as `Program.to_json` (python/ttlang/runtime/
//                 program.py) writes it; the schema is in docs/emulator.md. The loader
//                 uses device-independent fields only: grid, compute_config, cbs,
//                 buffers (name, shape, data_format), semaphores, kernels (name, kind)
//                 and runtime_args; kernel sources and compile-time args were compiled
//                 into the kernels' shared objects by the launcher.
//   launch.json   what this run binds to the program:
//                 "device_description": path of python/ttlang/device/<name>.toml,
//                 "kernel_libraries": {kernel name: path of its shared object},
//                 "stored_in": {buffer: earlier buffer given the same tensor, whose DRAM
//                 it shares}, "initial_data": [stored buffers with a .in file],
//                 "read_back": [stored buffers to write a .out file for].
// A runtime arg {"buffer": name} becomes that buffer's DRAM address; {"noc": "x"|"y",
// "index": i} becomes i (the emulator's NoC coordinates are the logical ones).
// Buffer files are named by the buffer's position in program.json's "buffers":
// buffer<index>.in (tile pages, hardware layout) is read, buffer<index>.out written, and
// the timing report goes to report.json. A malformed file is a setup error naming the
// file and field.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device.h"

namespace ttemu {

struct LoadedProgram {
  std::unique_ptr<Device> device;
  // Buffers read back: name and the index that names their file.
  std::vector<std::pair<std::string, int>> outputs;
};

// Builds a device from <work_dir>/program.json and launch.json, loads its kernels and
// input buffers.
LoadedProgram load_program(const std::string& work_dir);
// Writes output buffers and report.json (with the host seconds the run took).
void save_results(const LoadedProgram& program, const std::string& work_dir, double host_seconds);

}  // namespace ttemu
