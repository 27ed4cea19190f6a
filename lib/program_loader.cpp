#include "program_loader.h"

#include <dlfcn.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "errors.h"
#include "json.h"

namespace ttemu {

namespace {

// The version of both files (PROGRAM_FORMAT in python/ttlang/runtime/program.py).
constexpr int kProgramFormat = 2;

DataFormat parse_format(const Json& value) {
  const std::string& text = value.as_string();
  if (text == "bf16") return DataFormat::Float16_b;
  if (text == "fp32") return DataFormat::Float32;
  if (text == "bfp8_b") return DataFormat::Bfp8_b;
  throw JsonError(value.where() + ": unknown data format '" + text + "' (bf16, fp32 or bfp8_b)");
}

MathFidelity parse_fidelity(const Json& value) {
  const std::string& text = value.as_string();
  if (text == "LoFi") return MathFidelity::LoFi;
  if (text == "HiFi2") return MathFidelity::HiFi2;
  if (text == "HiFi3") return MathFidelity::HiFi3;
  if (text == "HiFi4") return MathFidelity::HiFi4;
  throw JsonError(value.where() + ": unknown math fidelity '" + text + "' (LoFi, HiFi2, HiFi3 or HiFi4)");
}

ThreadKind parse_kind(const Json& value) {
  const std::string& text = value.as_string();
  if (text == "reader") return ThreadKind::Reader;
  if (text == "compute") return ThreadKind::Compute;
  if (text == "writer") return ThreadKind::Writer;
  throw JsonError(value.where() + ": unknown kernel kind '" + text + "' (reader, compute or writer)");
}

uint32_t parse_u32(const Json& value) { return static_cast<uint32_t>(value.as_int(0, UINT32_MAX)); }

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

Json read_json(const std::string& work_dir, const std::string& name) {
  std::ifstream file(work_dir + "/" + name, std::ios::binary);
  if (!file) fail_setup("cannot read " + work_dir + "/" + name);
  std::ostringstream text;
  text << file.rdbuf();
  Json document = Json::parse(text.str(), name);
  if (document.at("format").as_int(INT32_MIN, INT32_MAX) != kProgramFormat)
    throw JsonError(name + ": format " + std::to_string(document.at("format").as_int(INT32_MIN, INT32_MAX)) +
                    " is not the format this emulator reads (" + std::to_string(kProgramFormat) +
                    "): rebuild the emulator and the launcher from the same checkout");
  return document;
}

std::set<std::string> name_set(const Json& names) {
  std::set<std::string> result;
  for (const Json& name : names.items()) result.insert(name.as_string());
  return result;
}

// Pages of an interleaved buffer of 32x32 tiles of a tensor of `shape` (batch dims
// outermost), as DramBuffer.num_pages in python/ttlang/runtime/program.py.
uint32_t tile_pages(const Json& shape) {
  const auto& extents = shape.items();
  if (extents.size() < 2) throw JsonError(shape.where() + ": a buffer shape has at least two dims");
  uint64_t pages = 1;
  for (size_t i = 0; i < extents.size(); ++i) {
    uint64_t extent = parse_u32(extents[i]);
    if (i + 2 >= extents.size()) {
      if (extent % 32) throw JsonError(extents[i].where() + ": " + std::to_string(extent) + " is not a multiple of 32");
      extent /= 32;
    }
    pages *= extent;
  }
  if (pages > UINT32_MAX) throw JsonError(shape.where() + ": too many tiles");
  return static_cast<uint32_t>(pages);
}

LoadedProgram load(const std::string& work_dir) {
  const Json program_json = read_json(work_dir, "program.json");
  const Json launch = read_json(work_dir, "launch.json");
  DeviceConfig config;
  const auto& grid = program_json.at("grid");
  if (grid.items().size() != 2) throw JsonError(grid.where() + ": expected [rows, cols]");
  config.rows = static_cast<int>(grid.items()[0].as_int(1, INT32_MAX));
  config.cols = static_cast<int>(grid.items()[1].as_int(1, INT32_MAX));
  const Json& compute = program_json.at("compute_config");
  config.math_fidelity = parse_fidelity(compute.at("math_fidelity"));
  config.fp32_dest_acc_en = compute.at("fp32_dest_acc_en").as_bool();
  config.math_approx_mode = compute.at("math_approx_mode").as_bool();
  config.dst_full_sync_en = compute.at("dst_full_sync_en").as_bool();
  const std::string& description_path = launch.at("device_description").as_string();
  LoadedProgram program{std::make_unique<Device>(config, load_device_description(description_path)), {}};
  Device* device = program.device.get();

  // CBs with L1 of their own first, so a CB sharing another's finds it wherever it is listed.
  for (bool sharing : {false, true}) {
    for (const Json& cb : program_json.at("cbs").items()) {
      const Json* shares = cb.find("shares_l1_with");
      int holder = shares ? static_cast<int>(shares->as_int(-1, 1 << 30)) : -1;
      if ((holder >= 0) != sharing) continue;
      device->add_cb(parse_u32(cb.at("index")), parse_u32(cb.at("num_pages")), parse_u32(cb.at("page_size")),
                     parse_format(cb.at("data_format")), holder);
    }
  }

  // Buffers: a stored one gets DRAM; one `stored_in` another shares its address.
  std::map<std::string, std::string> stored_in;
  for (const auto& [name, holder] : launch.at("stored_in").members()) stored_in[name] = holder.as_string();
  std::set<std::string> initial_data = name_set(launch.at("initial_data"));
  std::set<std::string> read_back = name_set(launch.at("read_back"));
  std::map<std::string, uint32_t> buffer_addresses;
  const auto& buffers = program_json.at("buffers").items();
  for (size_t index = 0; index < buffers.size(); ++index) {
    const Json& buffer = buffers[index];
    const std::string& name = buffer.at("name").as_string();
    if (stored_in.count(name)) continue;
    uint32_t address = device->add_buffer(name, parse_format(buffer.at("data_format")), tile_pages(buffer.at("shape")));
    buffer_addresses[name] = address;
    if (initial_data.count(name)) {
      std::ifstream input(buffer_path(work_dir, static_cast<int>(index), ".in"), std::ios::binary);
      auto& data = device->dram().find(name)->data;
      if (!input.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size())))
        fail_setup("cannot read the input data of buffer '" + name + "'");
    }
    if (read_back.count(name)) program.outputs.emplace_back(name, static_cast<int>(index));
  }
  for (const auto& [name, holder] : stored_in) {
    auto found = buffer_addresses.find(holder);
    if (found == buffer_addresses.end())
      throw JsonError("launch.json: stored_in." + name + ": '" + holder + "' is not a stored buffer of the program");
    buffer_addresses[name] = found->second;
  }

  std::vector<uint32_t> semaphores;
  for (const Json& value : program_json.at("semaphores").items()) semaphores.push_back(parse_u32(value));
  if (!semaphores.empty()) device->set_semaphores(semaphores);

  const Json& libraries = launch.at("kernel_libraries");
  for (const Json& kernel : program_json.at("kernels").items()) {
    const std::string& name = kernel.at("name").as_string();
    const Json* library = libraries.find(name);
    if (!library) throw JsonError("launch.json: kernel_libraries names no shared object for kernel '" + name + "'");
    const Json& noc = kernel.at("noc");
    device->add_kernel({name, parse_kind(kernel.at("kind")), load_kernel(library->as_string(), name),
                        noc.kind() == Json::Kind::Null ? -1 : static_cast<int>(noc.as_int(0, 1))});
  }

  for (const auto& [kernel, per_core] : program_json.at("runtime_args").members()) {
    for (const Json& entry : per_core.items()) {
      const auto& core = entry.at("core").items();
      if (core.size() != 2) throw JsonError(entry.at("core").where() + ": expected [row, col]");
      std::vector<uint32_t> args;
      for (const Json& arg : entry.at("args").items()) {
        if (arg.kind() != Json::Kind::Object) {
          // Python ints: a negative one is its two's complement, as a uint32_t kernel arg.
          args.push_back(static_cast<uint32_t>(arg.as_int(INT32_MIN, UINT32_MAX)));
        } else if (const Json* buffer = arg.find("buffer")) {
          auto found = buffer_addresses.find(buffer->as_string());
          if (found == buffer_addresses.end())
            throw JsonError(buffer->where() + ": names unknown buffer '" + buffer->as_string() + "'");
          args.push_back(found->second);
        } else {
          const std::string& axis = arg.at("noc").as_string();
          if (axis != "x" && axis != "y") throw JsonError(arg.at("noc").where() + ": expected \"x\" or \"y\"");
          args.push_back(parse_u32(arg.at("index")));
        }
      }
      device->set_runtime_args(kernel, static_cast<int>(core[0].as_int(0, INT32_MAX)),
                               static_cast<int>(core[1].as_int(0, INT32_MAX)), std::move(args));
    }
  }
  return program;
}

}  // namespace

LoadedProgram load_program(const std::string& work_dir) {
  try {
    return load(work_dir);
  } catch (const JsonError& error) {
    fail_setup(error.what());
  }
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
