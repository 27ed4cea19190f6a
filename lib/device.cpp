#include "device.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "errors.h"
#include "numerics.h"

namespace ttemu {

namespace {
Device* g_active_device = nullptr;

// Labels of every thread, prepared before the run so a crash handler can print the
// crashing thread without allocating.
std::vector<std::string> g_crash_labels;
// By fiber id: the thread's fiber and its last kernel API call (a string literal).
std::vector<const Fiber*> g_fibers;
std::vector<const char*> g_last_calls;

void write_text(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}

// The launcher stops a run past its time limit with SIGTERM: name every thread still
// running and its last kernel API call, then exit as a kernel error.
void timeout_handler(int) {
  write_text("ttemu error: stopped at the time limit; threads still running:\n");
  for (size_t id = 0; id < g_fibers.size(); ++id) {
    if (!g_fibers[id] || g_fibers[id]->state() == Fiber::State::Done) continue;
    write_text("ttemu error:   ");
    write_text(g_crash_labels[id].c_str());
    write_text(": last API call ");
    write_text(g_last_calls[id] ? g_last_calls[id] : "(none yet)");
    write_text("\n");
  }
  _exit(kExitKernelError);
}

void crash_handler(int signal_number) {
  const char* what = signal_number == SIGSEGV ? "SIGSEGV (invalid memory access)"
                     : signal_number == SIGBUS ? "SIGBUS (bad memory access)"
                     : signal_number == SIGFPE ? "SIGFPE (arithmetic exception)"
                     : "SIGILL (illegal instruction)";
  const char* prefix = "ttemu error: ";
  ssize_t ignored = write(STDERR_FILENO, prefix, strlen(prefix));
  if (g_active_device && g_active_device->scheduler().in_fiber()) {
    int id = g_active_device->scheduler().current().id();
    if (id >= 0 && static_cast<size_t>(id) < g_crash_labels.size()) {
      const std::string& label = g_crash_labels[id];
      ignored = write(STDERR_FILENO, label.data(), label.size());
      ignored = write(STDERR_FILENO, ": ", 2);
    }
  }
  const char* middle = "kernel crashed with ";
  ignored = write(STDERR_FILENO, middle, strlen(middle));
  ignored = write(STDERR_FILENO, what, strlen(what));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// A JSON string literal of `text`.
std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      quoted += escaped;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

// The physical NoC position of every core of a rows x cols grid, by core index.
std::vector<std::pair<int, int>> core_positions(const DeviceConfig& config, const DeviceDescription& description) {
  std::vector<std::pair<int, int>> positions;
  for (int row = 0; row < config.rows; ++row)
    for (int col = 0; col < config.cols; ++col)
      positions.emplace_back(description.column_x[std::min<size_t>(col, description.column_x.size() - 1)],
                             description.row_y[std::min<size_t>(row, description.row_y.size() - 1)]);
  return positions;
}

void install_crash_handlers() {
  static std::vector<char> alternate_stack(1 << 16);
  stack_t stack{};
  stack.ss_sp = alternate_stack.data();
  stack.ss_size = alternate_stack.size();
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_handler = crash_handler;
  action.sa_flags = SA_ONSTACK;
  for (int signal_number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(signal_number, &action, nullptr);
  struct sigaction stop {};
  stop.sa_handler = timeout_handler;
  stop.sa_flags = SA_ONSTACK;
  sigaction(SIGTERM, &stop, nullptr);
}
}  // namespace

Device::Device(const DeviceConfig& config, DeviceDescription description)
    : config_(config),
      description_(std::move(description)),
      dram_(description_.dram_banks, description_.dram_bank_bytes),
      noc_(description_, core_positions(config, description_)),
      next_cb_offset_(description_.l1_reserved_bytes),
      cb_shares_l1_(description_.max_cbs, false) {
  if (config.rows < 1 || config.cols < 1 || config.rows > description_.compute_rows ||
      config.cols > description_.compute_cols)
    fail_setup("grid " + std::to_string(config.rows) + "x" + std::to_string(config.cols) + " does not fit the " +
               description_.name + "'s " + std::to_string(description_.compute_rows) + "x" +
               std::to_string(description_.compute_cols) + " compute grid");
  const uint32_t l1_bytes = description_.l1_bytes;
  int count = config.rows * config.cols;
  // Kernels hold L1 addresses in uint32_t, as on hardware: map L1 below 4 GiB.
  l1_region_bytes_ = static_cast<size_t>(count) * l1_bytes;
#ifdef MAP_32BIT
  void* region = mmap(nullptr, l1_region_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT | MAP_NORESERVE, -1, 0);
#else
  // No MAP_32BIT outside x86-64: ask for an address hint in the low 4 GiB.
  void* region = mmap(reinterpret_cast<void*>(uintptr_t{1} << 30), l1_region_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
#endif
  if (region == MAP_FAILED || reinterpret_cast<uintptr_t>(region) + l1_region_bytes_ > (1ull << 32))
    fail_setup("cannot map L1 memory below 4 GiB");
  l1_region_ = static_cast<uint8_t*>(region);
  for (int index = 0; index < count; ++index) {
    cores_.push_back(std::make_unique<Core>(index / config.cols, index % config.cols, index,
                                            l1_region_ + static_cast<size_t>(index) * l1_bytes,
                                            description_.max_cbs));
    int register_tiles = config.fp32_dest_acc_en ? description_.dst_tiles_32bit : description_.dst_tiles_16bit;
    cores_.back()->dst().configure(register_tiles, config.fp32_dest_acc_en, config.dst_full_sync_en);
  }
  math_lanes_ = std::make_unique<MathLanes>(MathLanes::default_threads(), count);
  g_active_device = this;
  set_error_context([this] { return context_label(); });
}

Device::~Device() {
  if (l1_region_) munmap(l1_region_, l1_region_bytes_);
  if (g_active_device == this) {
    g_active_device = nullptr;
    set_error_context(nullptr);  // it names this device's threads
  }
}

Device& Device::active() { return *g_active_device; }

std::string Device::context_label() const {
  if (!scheduler_.in_fiber()) return "";
  int id = scheduler_.current().id();
  const KernelThread& thread = cores_[id / kThreadsPerCore]->threads()[id % kThreadsPerCore];
  return thread.core->label() + " " + thread_kind_name(thread.kind) + " [kernel '" + thread.kernel_name + "']";
}

void Device::add_cb(uint32_t id, uint32_t num_pages, uint32_t page_size, DataFormat format, int shares_l1_with) {
  std::string name = "cb " + std::to_string(id);
  if (id >= description_.max_cbs)
    fail_setup(name + ": CB ids are 0.." + std::to_string(description_.max_cbs - 1));
  if (cores_[0]->cbs()[id].configured()) fail_setup(name + " is configured twice");
  if (!is_supported_format(format)) fail_setup(name + ": only bf16, fp32 and bfp8_b CBs are emulated");
  if (num_pages == 0 || page_size == 0) fail_setup(name + ": needs at least one page of nonzero size");
  uint64_t bytes = static_cast<uint64_t>(num_pages) * page_size;
  if (shares_l1_with >= 0) {
    const auto holder = static_cast<uint32_t>(shares_l1_with);
    if (holder >= description_.max_cbs || !cores_[0]->cbs()[holder].configured() || cb_shares_l1_[holder])
      fail_setup(name + " shares the L1 of cb " + std::to_string(holder) +
                 ", which is not a CB with L1 of its own (not configured, or sharing another's)");
    const CircularBuffer& shared = cores_[0]->cbs()[holder];
    if (bytes > static_cast<uint64_t>(shared.num_pages()) * shared.page_size())
      fail_setup(name + " (" + std::to_string(bytes) + " B) is larger than cb " + std::to_string(holder) +
                 ", whose L1 it shares");
    for (auto& core : cores_)
      core->cbs()[id].configure(id, num_pages, page_size, format, core->cbs()[holder].base());
    cb_shares_l1_[id] = true;
    return;
  }
  uint64_t end = next_cb_offset_ + bytes;
  const uint32_t l1_bytes = description_.l1_bytes, reserved = description_.l1_reserved_bytes;
  if (end > l1_bytes) {
    uint64_t total = end - reserved;
    fail_setup("L1 over-allocation: " + name + " (" + std::to_string(num_pages) + " pages x " +
               std::to_string(page_size) + " B) brings the CBs to " + std::to_string(total) +
               " bytes, but a core has " + std::to_string(l1_bytes - reserved) + " bytes of L1 for CBs (" +
               std::to_string(l1_bytes / 1024) + " KiB minus " + std::to_string(reserved / 1024) + " KiB reserved)");
  }
  for (auto& core : cores_) core->cbs()[id].configure(id, num_pages, page_size, format, core->l1() + next_cb_offset_);
  const uint32_t alignment = description_.cb_alignment;
  next_cb_offset_ = static_cast<uint32_t>((end + alignment - 1) / alignment * alignment);
}

void Device::set_semaphores(const std::vector<uint32_t>& initial_values) {
  if (initial_values.size() > kMaxSemaphores)
    fail_setup("at most " + std::to_string(kMaxSemaphores) + " semaphores per core");
  num_semaphores_ = static_cast<uint32_t>(initial_values.size());
  for (auto& core : cores_)
    for (size_t i = 0; i < initial_values.size(); ++i)
      std::memcpy(core->l1() + kSemaphoreOffset + i * kSemaphoreStride, &initial_values[i], 4);
}

uint32_t Device::add_buffer(const std::string& name, DataFormat format, uint32_t num_pages) {
  if (dram_.find(name)) fail_setup("DRAM buffer '" + name + "' is defined twice");
  if (!is_supported_format(format)) fail_setup("DRAM buffer '" + name + "': only bf16, fp32 and bfp8_b are emulated");
  return dram_.allocate(name, format, num_pages, format_tile_bytes(format));
}

void Device::add_kernel(const KernelSpec& kernel) {
  if (kernel.noc < -1 || kernel.noc > 1)
    fail_setup("kernel '" + kernel.name + "': noc " + std::to_string(kernel.noc) + " does not exist (NoC 0 or 1)");
  for (const KernelSpec& other : kernels_) {
    if (other.name == kernel.name) fail_setup("kernel '" + kernel.name + "' is defined twice");
    if (other.kind == kernel.kind)
      fail_setup(std::string("two ") + thread_kind_name(kernel.kind) + " kernels ('" + other.name + "' and '" +
                 kernel.name + "'); a core runs one of each kind");
  }
  kernels_.push_back(kernel);
  if (kernel.noc < 0)
    kernels_.back().noc = kernel.kind == ThreadKind::Writer ? description_.noc.writer_noc : description_.noc.reader_noc;
  runtime_args_.emplace_back(cores_.size());
}

void Device::set_runtime_args(const std::string& kernel, int row, int col, std::vector<uint32_t> args) {
  if (row < 0 || row >= config_.rows || col < 0 || col >= config_.cols)
    fail_setup("runtime args for kernel '" + kernel + "' name core (" + std::to_string(row) + "," +
               std::to_string(col) + ") outside the grid");
  for (size_t k = 0; k < kernels_.size(); ++k)
    if (kernels_[k].name == kernel) {
      runtime_args_[k][row * config_.cols + col] = std::move(args);
      return;
    }
  fail_setup("runtime args for unknown kernel '" + kernel + "'");
}

KernelThread& Device::thread() {
  int id = scheduler_.current().id();
  return cores_[id / kThreadsPerCore]->threads()[id % kThreadsPerCore];
}

Core& Device::core_at_noc(uint32_t x, uint32_t y, const char* call) {
  if (x >= static_cast<uint32_t>(config_.cols) || y >= static_cast<uint32_t>(config_.rows))
    fail(std::string(call) + ": NoC coordinates (x=" + std::to_string(x) + ", y=" + std::to_string(y) +
         ") are outside the " + std::to_string(config_.rows) + "x" + std::to_string(config_.cols) + " grid");
  return *cores_[y * config_.cols + x];
}

bool Device::locate_l1(uint32_t address, int* core_index, uint32_t* offset) const {
  uintptr_t base = reinterpret_cast<uintptr_t>(l1_region_);
  if (address < base || address >= base + l1_region_bytes_) return false;
  *core_index = static_cast<int>((address - base) / description_.l1_bytes);
  *offset = static_cast<uint32_t>((address - base) % description_.l1_bytes);
  return true;
}

uint32_t Device::l1_address(const Core& core, uint32_t offset) const {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(core.l1()) + offset);
}

bool Device::overlaps_semaphores(uint32_t offset, uint32_t size) const {
  uint32_t end = kSemaphoreOffset + num_semaphores_ * kSemaphoreStride;
  return num_semaphores_ > 0 && offset < end && offset + size > kSemaphoreOffset;
}

void Device::note_api_call(const char* call) {
  if (scheduler_.in_fiber()) g_last_calls[scheduler_.current().id()] = call;
}

void Device::run() {
  // Every core runs one thread per kernel kind present; ids order ties deterministically.
  g_crash_labels.assign(cores_.size() * kThreadsPerCore, "");
  g_fibers.assign(cores_.size() * kThreadsPerCore, nullptr);
  g_last_calls.assign(cores_.size() * kThreadsPerCore, nullptr);
  for (auto& core : cores_) {
    core->threads().resize(kThreadsPerCore);
    for (int kind = 0; kind < kThreadsPerCore; ++kind) {
      KernelThread& thread = core->threads()[kind];
      thread.core = core.get();
      thread.kind = static_cast<ThreadKind>(kind);
    }
  }
  for (size_t k = 0; k < kernels_.size(); ++k) {
    for (auto& core : cores_) {
      KernelThread& thread = core->threads()[static_cast<int>(kernels_[k].kind)];
      thread.kernel_name = kernels_[k].name;
      thread.entry = kernels_[k].entry;
      thread.noc = kernels_[k].noc;
      thread.runtime_args = runtime_args_[k][core->index()];
      int id = core->index() * kThreadsPerCore + static_cast<int>(kernels_[k].kind);
      g_crash_labels[id] = core->label() + " " + thread_kind_name(thread.kind) + " [kernel '" + thread.kernel_name + "']";
    }
  }
  for (auto& core : cores_)
    for (KernelThread& thread : core->threads())
      if (thread.entry) {
        int id = core->index() * kThreadsPerCore + static_cast<int>(thread.kind);
        KernelThread* self = &thread;
        thread.fiber = &scheduler_.spawn(id, [self] {
          self->entry();
          if (self->kind == ThreadKind::Compute) self->core->dst().check_released_at_end();
          // Outstanding NoC transfers and packing still belong to the thread's time.
          Device::active().scheduler().wait_until(
              std::max({self->reads_done_at, self->writes_done_at, self->pack_clock}));
        });
        g_fibers[id] = thread.fiber;
      }
  install_crash_handlers();
  for (;;) {
    if (scheduler_.run()) {
      math_lanes_->drain_all();
      check_pushed_pages_used();
      return;
    }
    bool woken = false;
    for (auto& core : cores_) woken = core->wake_satisfied_semaphore_waiters(scheduler_) || woken;
    if (woken) continue;
    std::ostringstream message;
    std::vector<const Fiber*> blocked = scheduler_.blocked_fibers();
    message << "deadlock: no thread can make progress; " << blocked.size() << " blocked thread(s):";
    for (const Fiber* fiber : blocked) message << "\n  " << g_crash_labels[fiber->id()] << ": " << fiber->describe_wait();
    set_error_context(nullptr);
    fail(message.str());
  }
}

void Device::check_pushed_pages_used() {
  std::ostringstream left;
  int count = 0;
  for (auto& core : cores_)
    for (CircularBuffer& cb : core->cbs())
      if (cb.configured() && cb.pages_never_waited() > 0) {
        left << "\n  " << core->label() << " cb " << cb.id() << ": " << cb.pages_never_waited() << " page(s)";
        ++count;
      }
  if (count == 0) return;
  set_error_context(nullptr);
  fail("the run ended with pages pushed to " + std::to_string(count) +
       " CB(s) that no thread waited for: their data was never used (a wait in a branch not taken or a "
       "loop that runs too few times?)" + left.str());
}

std::string Device::report_json() const {
  std::ostringstream json;
  uint64_t critical_cycles = 0;
  int critical = 0;
  uint64_t total_flops = 0;
  for (const auto& core : cores_) {
    uint64_t cycles = 0;
    for (const KernelThread& thread : core->threads())
      if (thread.fiber) cycles = std::max(cycles, thread.fiber->clock());
    if (cycles > critical_cycles) {
      critical_cycles = cycles;
      critical = core->index();
    }
    total_flops += core->flops();
  }
  const double clock_hz = description_.clock_hz;
  double seconds = critical_cycles / clock_hz;
  double peak = peak_flops_per_cycle(costs(), config_.math_fidelity) * clock_hz * static_cast<double>(cores_.size());
  json << "{\n";
  json << " \"device\": " << json_string(description_.name) << ",\n";
  json << " \"grid\": [" << config_.rows << ", " << config_.cols << "],\n";
  json << " \"math_fidelity\": \"" << fidelity_name(config_.math_fidelity) << "\",\n";
  json << " \"clock_hz\": " << clock_hz << ",\n";
  json << " \"cycles\": " << critical_cycles << ",\n";
  json << " \"critical_core\": [" << critical / config_.cols << ", " << critical % config_.cols << "],\n";
  json << " \"time_s\": " << seconds << ",\n";
  json << " \"flops\": " << total_flops << ",\n";
  json << " \"achieved_flops_per_s\": " << (seconds > 0 ? total_flops / seconds : 0.0) << ",\n";
  json << " \"peak_flops_per_s\": " << peak << ",\n";
  json << " \"dram_bytes_read\": " << noc_.dram_bytes_read() << ",\n";
  json << " \"dram_bytes_written\": " << noc_.dram_bytes_written() << ",\n";
  json << " \"cores\": [";
  for (size_t i = 0; i < cores_.size(); ++i) {
    const Core& core = *cores_[i];
    uint64_t cycles = 0;
    for (const KernelThread& thread : core.threads())
      if (thread.fiber) cycles = std::max(cycles, thread.fiber->clock());
    json << (i ? ",\n  " : "\n  ") << "{\"core\": [" << core.row() << ", " << core.col() << "], \"cycles\": " << cycles
         << ", \"flops\": " << core.flops() << ", \"threads\": [";
    bool first = true;
    for (const KernelThread& thread : core.threads()) {
      if (!thread.fiber) continue;
      json << (first ? "" : ", ") << "{\"thread\": \"" << thread_kind_name(thread.kind)
           << "\", \"kernel\": " << json_string(thread.kernel_name) << ", \"cycles\": " << thread.fiber->clock()
           << ", \"busy\": " << thread.fiber->busy_cycles() << ", \"waiting\": " << thread.fiber->waiting_cycles()
           << ", \"tiles_unpacked\": " << thread.tiles_unpacked << ", \"tiles_packed\": " << thread.tiles_packed
           << ", \"packer_busy\": " << thread.pack_busy << ", \"packer_waiting\": " << thread.pack_clock - thread.pack_busy
           << "}";
      first = false;
    }
    json << "]}";
  }
  json << "\n ]\n}\n";
  return json.str();
}

}  // namespace ttemu
