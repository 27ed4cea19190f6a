#include "program_loader.h"

#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "errors.h"

namespace ttemu {

namespace {

DataFormat parse_format(const std::string& text, int line_number) {
  if (text == "bf16") return DataFormat::Float16_b;
  if (text == "fp32") return DataFormat::Float32;
  if (text == "bfp8_b") return DataFormat::Bfp8_b;
  fail_setup("program.txt line " + std::to_string(line_number) + ": unknown data format '" + text + "'");
}

MathFidelity parse_fidelity(const std::string& text) {
  if (text == "LoFi") return MathFidelity::LoFi;
  if (text == "HiFi2") return MathFidelity::HiFi2;
  if (text == "HiFi3") return MathFidelity::HiFi3;
  if (text == "HiFi4") return MathFidelity::HiFi4;
  fail_setup("unknown math fidelity '" + text + "'");
}

ThreadKind parse_kind(const std::string& text) {
  if (text == "reader") return ThreadKind::Reader;
  if (text == "compute") return ThreadKind::Compute;
  if (text == "writer") return ThreadKind::Writer;
  fail_setup("unknown kernel kind '" + text + "'");
}

void (*load_kernel(const std::string& path, const std::string& name))() {
  // RTLD_LOCAL: every kernel keeps its own symbols (two kernels may define the same
  // helper names, as separate tt-metal kernel binaries may).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail_setup("cannot load kernel '" + name + "': " + dlerror());
  void* entry = dlsym(handle, "ttemu_kernel_entry");
  if (!entry) fail_setup("kernel '" + name + "' has no entry point");
  return reinterpret_cast<void (*)()>(entry);
}

std::string buffer_path(const std::string& work_dir, int index, const char* suffix) {
  return work_dir + "/buffer" + std::to_string(index) + suffix;
}

}  // namespace

LoadedProgram load_program(const std::string& work_dir) {
  std::ifstream file(work_dir + "/program.txt");
  if (!file) fail_setup("cannot read " + work_dir + "/program.txt");
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> raw_lines;
  for (std::string line; std::getline(file, line);) {
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string word; words >> word;) tokens.push_back(word);
    lines.push_back(tokens);
    raw_lines.push_back(line);
  }
  DeviceConfig config;
  std::string description_path;
  for (size_t n = 0; n < lines.size(); ++n) {
    const auto& tokens = lines[n];
    if (tokens.size() >= 2 && tokens[0] == "device") {
      // The path is the rest of the line (it may hold spaces).
      description_path = raw_lines[n].substr(raw_lines[n].find(tokens[1]));
    } else if (tokens.size() == 3 && tokens[0] == "grid") {
      config.rows = std::stoi(tokens[1]);
      config.cols = std::stoi(tokens[2]);
    } else if (tokens.size() == 5 && tokens[0] == "compute_config") {
      config.math_fidelity = parse_fidelity(tokens[1]);
      config.fp32_dest_acc_en = tokens[2] == "1";
      config.math_approx_mode = tokens[3] == "1";
      config.dst_full_sync_en = tokens[4] == "1";
    }
  }
  if (description_path.empty()) fail_setup("program.txt names no device description (a `device <path>` line)");
  LoadedProgram program{std::make_unique<Device>(config, load_device_description(description_path)), {}};
  Device* device = program.device.get();
  std::map<std::string, uint32_t> buffer_addresses;
  for (size_t n = 0; n < lines.size(); ++n) {
    const auto& tokens = lines[n];
    int line_number = static_cast<int>(n) + 1;
    if (tokens.empty() || tokens[0] == "device" || tokens[0] == "grid" || tokens[0] == "compute_config") continue;
    const std::string& directive = tokens[0];
    if (directive == "cb" && tokens.size() == 5) {
      device->add_cb(std::stoul(tokens[1]), std::stoul(tokens[2]), std::stoul(tokens[3]),
                     parse_format(tokens[4], line_number));
    } else if (directive == "buffer" && tokens.size() == 7) {
      int index = std::stoi(tokens[1]);
      const std::string& name = tokens[2];
      uint32_t num_pages = std::stoul(tokens[4]);
      buffer_addresses[name] = device->add_buffer(name, parse_format(tokens[3], line_number), num_pages);
      if (tokens[5] == "1") {
        std::ifstream input(buffer_path(work_dir, index, ".in"), std::ios::binary);
        auto& data = device->dram().find(name)->data;
        if (!input.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size())))
          fail_setup("cannot read the input data of buffer '" + name + "'");
      }
      if (tokens[6] == "1") program.outputs.emplace_back(name, index);
    } else if (directive == "semaphores") {
      std::vector<uint32_t> values;
      for (size_t i = 1; i < tokens.size(); ++i) values.push_back(std::stoul(tokens[i]));
      device->set_semaphores(values);
    } else if (directive == "kernel" && tokens.size() >= 4) {
      // The path is the rest of the line (it may hold spaces).
      const std::string& line = raw_lines[n];
      size_t kind_at = line.find(tokens[2], line.find(tokens[1]) + tokens[1].size());
      std::string path = line.substr(kind_at + tokens[2].size() + 1);
      device->add_kernel({tokens[1], parse_kind(tokens[2]), load_kernel(path, tokens[1])});
    } else if (directive == "args" && tokens.size() >= 4) {
      std::vector<uint32_t> args;
      for (size_t i = 4; i < tokens.size(); ++i) {
        if (tokens[i][0] == '@') {
          auto found = buffer_addresses.find(tokens[i].substr(1));
          if (found == buffer_addresses.end())
            fail_setup("runtime arg names unknown buffer '" + tokens[i].substr(1) + "'");
          args.push_back(found->second);
        } else {
          args.push_back(static_cast<uint32_t>(std::stoul(tokens[i])));
        }
      }
      device->set_runtime_args(tokens[1], std::stoi(tokens[2]), std::stoi(tokens[3]), std::move(args));
    } else {
      fail_setup("program.txt line " + std::to_string(line_number) + " is not understood: " + raw_lines[n]);
    }
  }
  return program;
}

void save_results(const LoadedProgram& program, const std::string& work_dir, double host_seconds) {
  for (const auto& [name, index] : program.outputs) {
    const auto& data = program.device->dram().find(name)->data;
    std::ofstream output(buffer_path(work_dir, index, ".out"), std::ios::binary);
    output.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!output) fail_setup("cannot write the output of buffer '" + name + "'");
  }
  std::string report = program.device->report_json();
  // Append the host time as the last field of the JSON object.
  size_t close = report.rfind('}');
  report.insert(close, ", \"host_seconds\": " + std::to_string(host_seconds) + "\n");
  std::ofstream(work_dir + "/report.json") << report;
}

}  // namespace ttemu
