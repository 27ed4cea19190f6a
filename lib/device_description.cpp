#include "device_description.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "errors.h"

namespace ttemu {

namespace {

// A description file as flat keys ("table.key") holding numbers or a string.
class FlatToml {
 public:
  explicit FlatToml(const std::string& path) : path_(path) {
    std::ifstream file(path);
    if (!file) fail_setup("cannot read the device description " + path);
    std::string table;
    std::string pending;  // a value whose brackets are not closed yet
    std::string pending_key;
    int line_number = 0;
    for (std::string line; std::getline(file, line);) {
      ++line_number;
      line = strip_comment(line);
      if (!pending_key.empty()) {
        pending += " " + line;
        if (balanced(pending)) {
          store(pending_key, pending, line_number);
          pending_key.clear();
        }
        continue;
      }
      std::string text = trim(line);
      if (text.empty()) continue;
      if (text.front() == '[') {
        if (text.back() != ']') error(line_number, "a table header must end with ']'");
        table = trim(text.substr(1, text.size() - 2));
        continue;
      }
      size_t equals = text.find('=');
      if (equals == std::string::npos) error(line_number, "expected `key = value`");
      std::string key = trim(text.substr(0, equals));
      std::string value = trim(text.substr(equals + 1));
      key = table.empty() ? key : table + "." + key;
      if (balanced(value)) {
        store(key, value, line_number);
      } else {
        pending_key = key;
        pending = value;
      }
    }
    if (!pending_key.empty()) fail_setup(path + ": the array of '" + pending_key + "' is not closed");
  }

  const std::vector<double>& numbers(const std::string& key) {
    auto found = numbers_.find(key);
    if (found == numbers_.end()) fail_setup(path_ + ": missing number(s) '" + key + "'");
    used_.insert(key);
    return found->second;
  }
  double number(const std::string& key) {
    const std::vector<double>& values = numbers(key);
    if (values.size() != 1) fail_setup(path_ + ": '" + key + "' must be one number");
    return values[0];
  }
  uint64_t count(const std::string& key) {
    double value = number(key);
    if (value < 0 || value != static_cast<double>(static_cast<uint64_t>(value)))
      fail_setup(path_ + ": '" + key + "' must be a non-negative integer");
    return static_cast<uint64_t>(value);
  }
  std::string string(const std::string& key) {
    auto found = strings_.find(key);
    if (found == strings_.end()) fail_setup(path_ + ": missing string '" + key + "'");
    used_.insert(key);
    return found->second;
  }
  // Fails on a key of `table` nobody read.
  void check_all_used(const std::string& table) const {
    for (const auto& [key, values] : numbers_)
      if (key.rfind(table + ".", 0) == 0 && !used_.count(key))
        fail_setup(path_ + ": unknown key '" + key + "' (the emulator does not know it)");
  }

 private:
  static std::string trim(const std::string& text) {
    size_t begin = text.find_first_not_of(" \t\r");
    if (begin == std::string::npos) return "";
    size_t end = text.find_last_not_of(" \t\r");
    return text.substr(begin, end - begin + 1);
  }
  static std::string strip_comment(const std::string& line) {
    bool in_string = false;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '"') in_string = !in_string;
      if (line[i] == '#' && !in_string) return line.substr(0, i);
    }
    return line;
  }
  static bool balanced(const std::string& value) {
    return std::count(value.begin(), value.end(), '[') == std::count(value.begin(), value.end(), ']');
  }
  [[noreturn]] void error(int line_number, const std::string& what) const {
    fail_setup(path_ + " line " + std::to_string(line_number) + ": " + what);
  }
  void store(const std::string& key, const std::string& value, int line_number) {
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      strings_[key] = value.substr(1, value.size() - 2);
      return;
    }
    if (value == "true" || value == "false") {
      numbers_[key] = {value == "true" ? 1.0 : 0.0};
      return;
    }
    // A number or an array of numbers (nested arrays are flattened).
    std::vector<double> values;
    const char* cursor = value.c_str();
    while (*cursor) {
      if (*cursor == '[' || *cursor == ']' || *cursor == ',' || std::isspace(static_cast<unsigned char>(*cursor))) {
        ++cursor;
        continue;
      }
      char* end = nullptr;
      double number = std::strtod(cursor, &end);
      if (end == cursor) error(line_number, "'" + key + "': expected numbers, got " + value);
      values.push_back(number);
      cursor = end;
    }
    numbers_[key] = std::move(values);
  }

  std::string path_;
  std::map<std::string, std::vector<double>> numbers_;
  std::map<std::string, std::string> strings_;
  std::set<std::string> used_;
};

std::vector<int> as_ints(const std::vector<double>& values) { return {values.begin(), values.end()}; }

}  // namespace

DeviceDescription load_device_description(const std::string& path) {
  FlatToml toml(path);
  DeviceDescription device;
  device.path = path;
  device.name = toml.string("name");
  device.clock_hz = toml.number("clock_hz");

  std::vector<int> noc_size = as_ints(toml.numbers("grid.noc_size"));
  if (noc_size.size() != 2) fail_setup(path + ": grid.noc_size must be [x, y]");
  device.noc_size_x = noc_size[0];
  device.noc_size_y = noc_size[1];
  device.column_x = as_ints(toml.numbers("grid.tensix_x"));
  std::vector<int> unused = as_ints(toml.numbers("grid.harvested_y"));
  for (int y : as_ints(toml.numbers("grid.dispatch_y"))) unused.push_back(y);
  for (int y : as_ints(toml.numbers("grid.tensix_y")))
    if (std::find(unused.begin(), unused.end(), y) == unused.end()) device.row_y.push_back(y);
  device.compute_rows = static_cast<int>(toml.count("grid.compute_rows"));
  device.compute_cols = static_cast<int>(toml.count("grid.compute_cols"));
  if (device.compute_rows > static_cast<int>(device.row_y.size()) ||
      device.compute_cols > static_cast<int>(device.column_x.size()))
    fail_setup(path + ": the compute grid is larger than the Tensix rows and columns it lists");
  device.row_y.resize(device.compute_rows);
  device.column_x.resize(device.compute_cols);

  device.l1_bytes = static_cast<uint32_t>(toml.count("l1.size_bytes"));
  device.l1_reserved_bytes = static_cast<uint32_t>(toml.count("l1.reserved_bytes"));
  device.max_cbs = static_cast<uint32_t>(toml.count("l1.max_cbs"));
  device.cb_alignment = static_cast<uint32_t>(toml.count("l1.cb_alignment"));
  device.dst_tiles_16bit = static_cast<int>(toml.count("dst.tiles_16bit"));
  device.dst_tiles_32bit = static_cast<int>(toml.count("dst.tiles_32bit"));

  device.dram_banks = static_cast<int>(toml.count("dram.banks"));
  device.dram_bank_bytes = toml.count("dram.bank_bytes");
  std::vector<int> bank_noc = as_ints(toml.numbers("dram.bank_noc"));
  if (bank_noc.size() != 2 * static_cast<size_t>(device.dram_banks))
    fail_setup(path + ": dram.bank_noc must list an [x, y] per bank");
  for (size_t i = 0; i < bank_noc.size(); i += 2) device.dram_bank_noc.emplace_back(bank_noc[i], bank_noc[i + 1]);
  device.dram_bank_bytes_per_cycle = toml.number("dram.bank_bytes_per_cycle");

  NocParameters& noc = device.noc;
  noc.link_bytes_per_cycle = toml.number("noc.link_bytes_per_cycle");
  noc.max_packet_bytes = static_cast<uint32_t>(toml.count("noc.max_packet_bytes"));
  noc.hop_cycles = toml.count("noc.hop_cycles");
  noc.reader_noc = static_cast<int>(toml.count("noc.reader_noc"));
  noc.writer_noc = static_cast<int>(toml.count("noc.writer_noc"));
  if (noc.reader_noc > 1 || noc.writer_noc > 1) fail_setup(path + ": noc.reader_noc and noc.writer_noc are 0 or 1");
  noc.issue_cycles = toml.count("noc.issue_cycles");
  noc.write_issue_cycles = toml.count("noc.write_issue_cycles");
  noc.message_cycles = toml.count("noc.message_cycles");
  noc.dram_read_bytes_per_cycle = toml.number("noc.dram_read_bytes_per_cycle");
  noc.dram_read_latency_cycles = toml.count("noc.dram_read_latency_cycles");
  noc.dram_write_bytes_per_cycle = toml.number("noc.dram_write_bytes_per_cycle");
  noc.dram_write_latency_cycles = toml.count("noc.dram_write_latency_cycles");
  noc.dram_burst_bytes = static_cast<uint32_t>(toml.count("noc.dram_burst_bytes"));
  noc.dram_partial_write_cycles = toml.count("noc.dram_partial_write_cycles");
  noc.core_read_bytes_per_cycle = toml.number("noc.core_read_bytes_per_cycle");
  noc.core_read_latency_cycles = toml.count("noc.core_read_latency_cycles");
  noc.core_write_bytes_per_cycle = toml.number("noc.core_write_bytes_per_cycle");
  noc.core_write_latency_cycles = toml.count("noc.core_write_latency_cycles");
  noc.multicast_bytes_per_cycle = toml.number("noc.multicast_bytes_per_cycle");
  noc.multicast_latency_cycles = toml.count("noc.multicast_latency_cycles");
  noc.multicast_linked_gap_cycles = toml.count("noc.multicast_linked_gap_cycles");
  noc.multicast_unlinked_gap_cycles = toml.count("noc.multicast_unlinked_gap_cycles");
  noc.write_response_cycles = toml.count("noc.write_response_cycles");
  toml.check_all_used("noc");

  CostTable& cost = device.cost;
  const std::pair<const char*, uint64_t*> cycles[] = {
      {"matmul_tile_per_phase", &cost.matmul_tile_per_phase},
      {"matmul_tile_floor_bf16", &cost.matmul_tile_floor_bf16},
      {"matmul_tile_floor_fp32", &cost.matmul_tile_floor_fp32},
      {"matmul_tile_floor_bfp8_b", &cost.matmul_tile_floor_bfp8_b},
      {"eltwise_add_tile", &cost.eltwise_add_tile},
      {"eltwise_mul_tile_per_phase", &cost.eltwise_mul_tile_per_phase},
      {"reduce_tile_per_phase", &cost.reduce_tile_per_phase},
      {"transpose_tile", &cost.transpose_tile},
      {"copy_tile", &cost.copy_tile},
      {"unary_bcast_tile", &cost.unary_bcast_tile},
      {"exp_approx_tile", &cost.exp_approx_tile},
      {"exp_tile", &cost.exp_tile},
      {"recip_tile", &cost.recip_tile},
      {"sqrt_tile", &cost.sqrt_tile},
      {"sfpu_simple_tile", &cost.sfpu_simple_tile},
      {"sfpu_div_tile", &cost.sfpu_div_tile},
      {"sfpu_where_tile", &cost.sfpu_where_tile},
      {"sfpu_copy_dest_tile", &cost.sfpu_copy_dest_tile},
      {"init", &cost.init},
      {"reconfig", &cost.reconfig},
      {"tile_regs_sync", &cost.tile_regs_sync},
      {"cb_call", &cost.cb_call},
      {"semaphore_call", &cost.semaphore_call},
      {"fill_causal_mask_tile", &cost.fill_causal_mask_tile},
      {"fill_uniform_tile", &cost.fill_uniform_tile},
  };
  for (const auto& [key, field] : cycles) *field = toml.count(std::string("cost.") + key);
  cost.pack_bytes_per_cycle = toml.number("cost.pack_bytes_per_cycle");
  toml.check_all_used("cost");
  return device;
}

}  // namespace ttemu
