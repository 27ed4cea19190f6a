#include "trace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "device.h"
#include "errors.h"

namespace ttemu {

TraceRecorder* g_trace = nullptr;

namespace {

// Without TTEMU_TRACE_MAX_SLICES (the Python launcher always sets it).
constexpr uint64_t kDefaultMaxSlices = 1000000;

std::unique_ptr<TraceRecorder>& active_recorder() {
  static std::unique_ptr<TraceRecorder> recorder;
  return recorder;
}

TraceRecorder::Track track_of(ThreadKind kind) {
  switch (kind) {
    case ThreadKind::Reader: return TraceRecorder::kReader;
    case ThreadKind::Compute: return TraceRecorder::kMath;
    case ThreadKind::Writer: return TraceRecorder::kWriter;
  }
  return TraceRecorder::kReader;
}

const char* const kTrackNames[] = {"reader", "compute: unpack+math", "compute: packer", "writer"};

// "r,c;r,c" -> the flags of those cores; every core when `spec` is empty.
std::vector<bool> parse_cores(const char* spec, const DeviceConfig& config) {
  int count = config.rows * config.cols;
  if (!spec || !*spec) return std::vector<bool>(count, true);
  std::vector<bool> traced(count, false);
  const char* at = spec;
  while (*at) {
    int row, col, used = 0;
    if (std::sscanf(at, "%d,%d%n", &row, &col, &used) != 2 || row < 0 || row >= config.rows || col < 0 ||
        col >= config.cols)
      fail_setup(std::string("TTEMU_TRACE_CORES: '") + spec + "' is not a list of cores 'row,col;row,col' in the " +
                 std::to_string(config.rows) + "x" + std::to_string(config.cols) + " grid");
    traced[row * config.cols + col] = true;
    at += used;
    if (*at == ';') ++at;
  }
  return traced;
}

// Appends JSON text to a file through a buffer.
class JsonOut {
 public:
  JsonOut(FILE* file, double clock_hz) : file_(file), clock_hz_(clock_hz) { buffer_.reserve(kFlushBytes + 4096); }
  ~JsonOut() { flush(); }
  JsonOut& operator<<(const char* text) {
    buffer_ += text;
    if (buffer_.size() > kFlushBytes) flush();
    return *this;
  }
  JsonOut& operator<<(const std::string& text) { return *this << text.c_str(); }
  JsonOut& operator<<(int64_t value) { return *this << std::to_string(value); }
  // A time in trace units (microseconds) from half cycles (flow ends sit mid-slice).
  JsonOut& time(uint64_t half_cycles) {
    char text[48];
    std::snprintf(text, sizeof text, "%.4f", static_cast<double>(half_cycles) * 0.5e6 / clock_hz_);
    std::string number = text;
    number.erase(number.find_last_not_of('0') + 1);
    if (number.back() == '.') number.pop_back();
    return *this << number;
  }
  void flush() {
    std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushBytes = 1 << 20;
  FILE* file_;
  double clock_hz_;
  std::string buffer_;
};

}  // namespace

const char* traced_name(BinaryOp op, Broadcast bcast) {
  static const char* const names[3][4] = {
      {"add_tiles", "add_tiles_bcast_rows", "add_tiles_bcast_cols", "add_tiles_bcast_scalar"},
      {"sub_tiles", "sub_tiles_bcast_rows", "sub_tiles_bcast_cols", "sub_tiles_bcast_scalar"},
      {"mul_tiles", "mul_tiles_bcast_rows", "mul_tiles_bcast_cols", "mul_tiles_bcast_scalar"}};
  return names[static_cast<int>(op)][static_cast<int>(bcast)];
}

const char* traced_name(BinaryOp op, DestReuse reuse) {
  static const char* const names[3][2] = {{"binary_dest_reuse_tiles<ELWADD, DEST_TO_SRCA>", "binary_dest_reuse_tiles<ELWADD, DEST_TO_SRCB>"},
                                           {"binary_dest_reuse_tiles<ELWSUB, DEST_TO_SRCA>", "binary_dest_reuse_tiles<ELWSUB, DEST_TO_SRCB>"},
                                           {"binary_dest_reuse_tiles<ELWMUL, DEST_TO_SRCA>", "binary_dest_reuse_tiles<ELWMUL, DEST_TO_SRCB>"}};
  return names[static_cast<int>(op)][reuse == DestReuse::DestToSrcB ? 1 : 0];
}

const char* traced_name(SfpuUnary op) {
  static const char* const names[] = {"exp_tile",       "recip_tile",     "sqrt_tile",       "rsqrt_tile",
                                      "negative_tile",  "abs_tile",       "relu_tile",       "add_unary_tile",
                                      "sub_unary_tile", "rsub_unary_tile", "mul_unary_tile", "div_unary_tile"};
  return names[static_cast<int>(op)];
}

const char* traced_name(SfpuBinary op) {
  static const char* const names[] = {"add_binary_tile", "sub_binary_tile", "mul_binary_tile",
                                      "div_binary_tile", "binary_max_tile", "binary_min_tile"};
  return names[static_cast<int>(op)];
}

// ---- recording ---------------------------------------------------------------------------

void TracedCall::begin(const char* name, int32_t cb, int32_t tile, int32_t dst, CbOp op, int32_t pages) {
  Scheduler& scheduler = Device::active().scheduler();
  if (!scheduler.in_fiber()) return;
  const Fiber& fiber = scheduler.current();
  if (!g_trace->traced(static_cast<uint32_t>(fiber.id() / kThreadsPerCore))) return;
  const KernelThread& thread = Device::active().thread();
  recorder_ = g_trace;
  name_ = name;
  cb_ = cb;
  tile_ = tile;
  dst_ = dst;
  op_ = op;
  pages_ = pages;
  fiber_id_ = fiber.id();
  clock_ = fiber.clock();
  busy_ = fiber.busy_cycles();
  pack_clock_ = thread.pack_clock;
  pack_busy_ = thread.pack_busy;
}

void TracedCall::end() {
  const Fiber& fiber = Device::active().scheduler().current();
  const KernelThread& thread = Device::active().thread();
  uint32_t core = static_cast<uint32_t>(fiber_id_ / kThreadsPerCore);
  uint64_t worked = fiber.busy_cycles() - busy_;
  uint64_t waited = fiber.clock() - clock_ - worked;
  int64_t main_slice = recorder_->add_call(core, track_of(thread.kind), name_, *this, clock_, waited, worked);
  int64_t cb_slice = main_slice;
  uint64_t cb_time = fiber.clock();
  if (thread.kind == ThreadKind::Compute) {
    uint64_t pack_worked = thread.pack_busy - pack_busy_;
    uint64_t pack_waited = thread.pack_clock - pack_clock_ - pack_worked;
    int64_t pack_slice = recorder_->add_call(core, TraceRecorder::kPacker, name_, *this, pack_clock_, pack_waited,
                                             pack_worked);
    // The packer reserves and pushes output pages; unpack waits for and pops inputs.
    if (op_ == CbOp::Reserve || op_ == CbOp::Push) {
      cb_slice = pack_slice;
      cb_time = thread.pack_clock;
    }
  }
  if (op_ != CbOp::None) recorder_->cb_event(core, *this, cb_slice, cb_time);
}

TraceRecorder::TraceRecorder(std::string path, std::vector<bool> traced_cores, uint64_t max_slices)
    : path_(std::move(path)), traced_cores_(std::move(traced_cores)), max_slices_(max_slices) {
  cbs_.resize(traced_cores_.size());
}

int64_t TraceRecorder::add_call(uint32_t core, Track track, const char* name, const TracedCall& call, uint64_t start,
                                uint64_t waited, uint64_t worked) {
  int64_t index = -1;
  if (waited > 0) {
    slices_.push_back({start, waited, name, call.cb_, call.tile_, call.dst_, call.pages_, core, track, true});
    index = static_cast<int64_t>(slices_.size()) - 1;
  }
  if (worked > 0) {
    slices_.push_back({start + waited, worked, name, call.cb_, call.tile_, call.dst_, call.pages_, core, track, false});
    index = static_cast<int64_t>(slices_.size()) - 1;
  }
  return index;
}

TraceRecorder::CbPages& TraceRecorder::cb_pages(uint32_t core, int32_t cb) {
  std::vector<CbPages>& cbs = cbs_[core];
  if (cbs.size() <= static_cast<size_t>(cb)) cbs.resize(cb + 1);
  CbPages& pages = cbs[cb];
  if (!pages.initialized) {
    pages.free.assign(Device::active().core(static_cast<int>(core)).cbs()[cb].num_pages(), -1);
    pages.initialized = true;
  }
  return pages;
}

void TraceRecorder::cb_event(uint32_t core, const TracedCall& call, int64_t slice, uint64_t time) {
  if (call.cb_ < 0 || call.pages_ <= 0) return;
  CbPages& pages = cb_pages(core, call.cb_);
  size_t count = static_cast<size_t>(call.pages_);
  auto flow_from = [&](const std::deque<int64_t>& sources) {
    // The last of the pages the call needs was the last one made ready.
    if (slice >= 0 && sources.size() >= count && sources[count - 1] >= 0)
      flows_.push_back({static_cast<uint32_t>(sources[count - 1]), static_cast<uint32_t>(slice)});
  };
  auto move_pages = [&](std::deque<int64_t>& from, std::deque<int64_t>& to) {
    for (size_t i = 0; i < count && !from.empty(); ++i) from.pop_front();
    to.insert(to.end(), count, slice);
  };
  switch (call.op_) {
    case CbOp::Wait: flow_from(pages.filled); break;
    case CbOp::Reserve: flow_from(pages.free); break;
    case CbOp::Pop:
      move_pages(pages.filled, pages.free);
      counters_.push_back({time, core, call.cb_, -call.pages_});
      break;
    case CbOp::Push:
      move_pages(pages.free, pages.filled);
      counters_.push_back({time, core, call.cb_, call.pages_});
      break;
    case CbOp::None: break;
  }
}

void TraceRecorder::add_transfer(int core, bool is_read, int dram_bank, uint64_t issued, uint64_t done) {
  uint32_t index = static_cast<uint32_t>(core);
  if (!traced(index)) return;
  int32_t series = is_read ? kNocReads : kNocWrites;
  counters_.push_back({issued, index, series, 1});
  counters_.push_back({done, index, series, -1});
  if (dram_bank >= 0) {
    counters_.push_back({issued, kDramCore, dram_bank, 1});
    counters_.push_back({done, kDramCore, dram_bank, -1});
  }
}

// ---- starting and writing -------------------------------------------------------------------

void TraceRecorder::start_from_environment(const Device& device) {
  const char* path = std::getenv("TTEMU_TRACE");
  if (!path || !*path) return;
  const char* limit = std::getenv("TTEMU_TRACE_MAX_SLICES");
  uint64_t max_slices = limit && *limit ? std::strtoull(limit, nullptr, 10) : kDefaultMaxSlices;
  if (max_slices == 0) fail_setup("TTEMU_TRACE_MAX_SLICES must be a positive number of slices");
  active_recorder().reset(
      new TraceRecorder(path, parse_cores(std::getenv("TTEMU_TRACE_CORES"), device.config()), max_slices));
  g_trace = active_recorder().get();
}

void TraceRecorder::finish(Device& device) {
  if (!g_trace) return;
  g_trace->write(device);
  g_trace = nullptr;
  active_recorder().reset();
}

void TraceRecorder::write(Device& device) const {
  const DeviceConfig& config = device.config();
  int num_cores = config.rows * config.cols;
  // Per core: its slices, and its cycles (the latest thread clock).
  std::vector<uint64_t> count(num_cores, 0), cycles(num_cores, 0);
  for (const Slice& slice : slices_) ++count[slice.core];
  for (int core = 0; core < num_cores; ++core)
    for (const KernelThread& thread : device.core(core).threads())
      if (thread.fiber) cycles[core] = std::max(cycles[core], thread.fiber->clock());
  std::vector<int> order;
  for (int core = 0; core < num_cores; ++core)
    if (traced(core)) order.push_back(core);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cycles[a] > cycles[b]; });
  // Whole cores, the critical one first, while they fit; if it alone does not, its
  // first max_slices_ slices.
  std::vector<bool> kept(num_cores, false);
  std::vector<int> left_out;
  uint64_t total = 0;
  uint64_t cut_at = UINT64_MAX;
  for (int core : order) {
    if (total + count[core] <= max_slices_) {
      kept[core] = true;
      total += count[core];
    } else if (total == 0) {
      kept[core] = true;
      std::vector<uint64_t> starts;
      for (const Slice& slice : slices_)
        if (slice.core == static_cast<uint32_t>(core)) starts.push_back(slice.start);
      std::nth_element(starts.begin(), starts.begin() + max_slices_, starts.end());
      cut_at = starts[max_slices_];
      total = max_slices_;
    } else {
      left_out.push_back(core);
    }
  }
  auto keep = [&](const Slice& slice) { return kept[slice.core] && slice.start < cut_at; };

  FILE* file = std::fopen(path_.c_str(), "w");
  if (!file) fail_setup("cannot write the trace to " + path_);
  {
    const double clock_hz = device.description().clock_hz;
    JsonOut out(file, clock_hz);
    auto core_label = [&](int core) {
      return "[" + std::to_string(core / config.cols) + ", " + std::to_string(core % config.cols) + "]";
    };
    auto pid = [](uint32_t core) { return core == kDramCore ? int64_t{0} : static_cast<int64_t>(core) + 1; };
    out << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"clock_hz\": " << static_cast<int64_t>(clock_hz)
        << ", \"grid\": [" << static_cast<int64_t>(config.rows) << ", " << static_cast<int64_t>(config.cols)
        << "], \"max_slices\": " << static_cast<int64_t>(max_slices_) << ", \"cores_traced\": [";
    bool first = true;
    for (int core = 0; core < num_cores; ++core)
      if (kept[core]) {
        out << (first ? "" : ", ") << core_label(core);
        first = false;
      }
    out << "], \"cores_left_out\": [";
    for (size_t i = 0; i < left_out.size(); ++i) out << (i ? ", " : "") << core_label(left_out[i]);
    out << "], \"cut_at_cycle\": ";
    if (cut_at == UINT64_MAX)
      out << "null";
    else
      out << static_cast<int64_t>(cut_at);
    out << "},\n\"traceEvents\": [\n";

    // Tracks: every thread of every kept core, named, in hardware order.
    first = true;
    auto metadata = [&](const char* what, int64_t process, int64_t thread, const std::string& field,
                        const std::string& value) {
      out << (first ? "" : ",\n") << "{\"ph\": \"M\", \"name\": \"" << what << "\", \"pid\": " << process;
      if (thread >= 0) out << ", \"tid\": " << thread;
      out << ", \"args\": {\"" << field << "\": " << value << "}}";
      first = false;
    };
    // Extra waiting slices: a thread's time between its last call and its end (outstanding
    // NoC transfers and packing), which no call covers.
    std::vector<Slice> kernel_ends;
    std::vector<uint64_t> waited(static_cast<size_t>(num_cores) * kTracks, 0);
    for (const Slice& slice : slices_)
      if (slice.waiting) waited[slice.core * kTracks + slice.track] += slice.duration;
    for (int core = 0; core < num_cores; ++core) {
      if (!kept[core]) continue;
      Core& state = device.core(core);
      metadata("process_name", pid(core), -1, "name", "\"core (" + std::to_string(state.row()) + "," +
                                                          std::to_string(state.col()) + ")\"");
      metadata("process_sort_index", pid(core), -1, "sort_index", std::to_string(core));
      for (const KernelThread& thread : state.threads()) {
        if (!thread.fiber) continue;
        std::vector<Track> tracks = {track_of(thread.kind)};
        if (thread.kind == ThreadKind::Compute) tracks.push_back(kPacker);
        for (Track track : tracks) {
          metadata("thread_name", pid(core), track + 1, "name",
                   std::string("\"") + kTrackNames[track] + " [" + thread.kernel_name + "]\"");
          metadata("thread_sort_index", pid(core), track + 1, "sort_index", std::to_string(track));
        }
        Track track = track_of(thread.kind);
        uint64_t tail = thread.fiber->waiting_cycles() - waited[core * kTracks + track];
        uint64_t end = thread.fiber->clock();
        if (tail > 0 && end - tail < cut_at)
          kernel_ends.push_back({end - tail, tail, "kernel end (outstanding NoC transfers, packing)", -1, -1, -1, -1,
                                 static_cast<uint32_t>(core), track, true});
      }
    }
    metadata("process_name", pid(kDramCore), -1, "name", "\"DRAM\"");
    metadata("process_sort_index", pid(kDramCore), -1, "sort_index", std::to_string(num_cores));

    auto write_slice = [&](const Slice& slice) {
      out << ",\n{\"ph\": \"X\", \"cat\": \"" << (slice.waiting ? "wait" : "busy") << "\", \"name\": \""
          << slice.name << "\", \"pid\": " << pid(slice.core) << ", \"tid\": " << static_cast<int64_t>(slice.track + 1)
          << ", \"ts\": ";
      out.time(2 * slice.start) << ", \"dur\": ";
      out.time(2 * slice.duration) << ", \"args\": {";
      const char* separator = "";
      for (auto [key, value] : {std::pair<const char*, int32_t>{"cb", slice.cb}, {"tile", slice.tile},
                                {"dst", slice.dst}, {"pages", slice.pages}})
        if (value >= 0) {
          out << separator << "\"" << key << "\": " << static_cast<int64_t>(value);
          separator = ", ";
        }
      out << "}}";
    };
    for (const Slice& slice : slices_)
      if (keep(slice)) write_slice(slice);
    for (const Slice& slice : kernel_ends) write_slice(slice);

    // Flows: from the middle of one slice to the middle of the other.
    int64_t flow_id = 0;
    for (const Flow& flow : flows_) {
      const Slice& from = slices_[flow.from];
      const Slice& to = slices_[flow.to];
      if (!keep(from) || !keep(to)) continue;
      ++flow_id;
      std::string name = "\"cb " + std::to_string(from.cb) + "\"";
      out << ",\n{\"ph\": \"s\", \"cat\": \"cb\", \"name\": " << name << ", \"id\": " << flow_id
          << ", \"pid\": " << pid(from.core) << ", \"tid\": " << static_cast<int64_t>(from.track + 1) << ", \"ts\": ";
      out.time(2 * from.start + from.duration) << "},\n{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"cb\", \"name\": "
                                                << name << ", \"id\": " << flow_id << ", \"pid\": " << pid(to.core)
                                                << ", \"tid\": " << static_cast<int64_t>(to.track + 1) << ", \"ts\": ";
      out.time(2 * to.start + to.duration) << "}";
    }

    // Counters: the running sum of each series' steps in time order.
    std::vector<CounterStep> steps;
    for (const CounterStep& step : counters_)
      if ((step.core == kDramCore || kept[step.core]) && step.time < cut_at) steps.push_back(step);
    std::stable_sort(steps.begin(), steps.end(),
                     [](const CounterStep& a, const CounterStep& b) { return a.time < b.time; });
    std::map<std::pair<uint32_t, int32_t>, int64_t> level;
    for (const CounterStep& step : steps) {
      int64_t value = level[{step.core, step.series}] += step.delta;
      std::string name = step.core == kDramCore           ? "bank " + std::to_string(step.series) + " transfers"
                         : step.series == kNocReads  ? std::string("NoC reads in flight")
                         : step.series == kNocWrites ? std::string("NoC writes in flight")
                                                     : "cb " + std::to_string(step.series) + " pages";
      out << ",\n{\"ph\": \"C\", \"name\": \"" << name << "\", \"pid\": " << pid(step.core) << ", \"ts\": ";
      out.time(2 * step.time) << ", \"args\": {\"value\": " << value << "}}";
    }
    out << "\n]}\n";
  }
  if (std::fclose(file) != 0) fail_setup("cannot write the trace to " + path_);
}

}  // namespace ttemu
