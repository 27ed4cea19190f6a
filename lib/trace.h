// Timeline tracing: every kernel API call of a run as Chrome trace-event JSON
// (Perfetto, chrome://tracing; docs/profiling.md says how to read it).
//
// Off unless the launcher sets TTEMU_TRACE=<path> (ttlang.runtime.trace): then
// `g_trace` points at the recorder and each API call's `TracedCall` notes how the
// calling thread's clocks moved across the call. Off, a call costs one test of a null
// pointer on entry and one on exit.
//
// What a trace holds (one process per core, one track per thread):
// - a slice per API call on the track whose clock it moved: reader, compute (unpack +
//   math: the fiber's clock), packer (KernelThread::pack_clock), writer. A call that
//   waited has a "waiting" slice (cat "wait") before its "busy" slice (cat "busy"),
//   so a track's busy slices add up to the report's busy cycles and its wait slices to
//   its waiting cycles; args name the CB, tile index, DST index and page count;
// - flow arrows from the cb_push_back that filled a CB's pages to the cb_wait_front
//   that got them, and from the cb_pop_front that freed pages to the cb_reserve_back
//   that took them;
// - counters: pages held by each CB of each core, NoC reads and writes in flight per
//   core, and transfers in flight per DRAM bank (process "DRAM").
// Size: TTEMU_TRACE_CORES="r,c;r,c" records only those cores; past
// TTEMU_TRACE_MAX_SLICES slices the writer keeps whole cores, the critical core first,
// and names the cores it left out (and, if the critical core alone is too big, the
// cycle its timeline was cut at) in the trace's "otherData".
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "ttemu/kernel_bridge.h"

namespace ttemu {

class Device;
class TraceRecorder;

// The active recorder, or null when tracing is off.
extern TraceRecorder* g_trace;

// What a CB call does to the CB's pages (for flows and occupancy counters).
enum class CbOp : uint8_t { None, Wait, Pop, Reserve, Push };

// One kernel API call on the calling thread: construct it first thing in the call.
class TracedCall {
 public:
  // A call naming (when it has them, else -1) a CB, a tile index in it and a DST index.
  explicit TracedCall(const char* name, int32_t cb = -1, int32_t tile = -1, int32_t dst = -1) {
    if (g_trace) begin(name, cb, tile, dst, CbOp::None, -1);
  }
  // A CB call moving `pages` pages.
  TracedCall(const char* name, CbOp op, uint32_t cb, uint32_t pages) {
    if (g_trace) begin(name, static_cast<int32_t>(cb), -1, -1, op, static_cast<int32_t>(pages));
  }
  ~TracedCall() {
    if (recorder_) end();
  }
  TracedCall(const TracedCall&) = delete;
  TracedCall& operator=(const TracedCall&) = delete;

 private:
  friend class TraceRecorder;
  void begin(const char* name, int32_t cb, int32_t tile, int32_t dst, CbOp op, int32_t pages);
  void end();

  // Only recorder_ is set when tracing is off: the rest is written by begin(), so an
  // untraced call stores one pointer.
  TraceRecorder* recorder_ = nullptr;
  const char* name_;
  int32_t cb_, tile_, dst_, pages_;
  CbOp op_;
  int fiber_id_;
  uint64_t clock_, busy_, pack_clock_, pack_busy_;
};

// tt-metal's names of the calls the kernel API folds into one entry point.
const char* traced_name(BinaryOp op, Broadcast bcast);
const char* traced_name(BinaryOp op, DestReuse reuse);
const char* traced_name(SfpuUnary op);
const char* traced_name(SfpuBinary op);

// A NoC transfer issued by `core` at `issued`, complete at `done`; `dram_bank` is the
// bank it reads or writes, or -1 for core-to-core traffic.
inline void trace_noc_transfer(int core, bool is_read, int dram_bank, uint64_t issued, uint64_t done);

class TraceRecorder {
 public:
  // Starts recording if TTEMU_TRACE is set (call before Device::run).
  static void start_from_environment(const Device& device);
  // Writes the trace file if recording (call after Device::run).
  static void finish(Device& device);

  enum Track : uint8_t { kReader, kMath, kPacker, kWriter, kTracks };
  struct Slice {
    uint64_t start;
    uint64_t duration;
    const char* name;
    int32_t cb, tile, dst, pages;
    uint32_t core;
    Track track;
    bool waiting;
  };
  struct Flow {
    uint32_t from, to;  // slice indices
  };
  struct CounterStep {
    uint64_t time;
    uint32_t core;
    int32_t series;  // CB id, or kNocReads/kNocWrites, or a DRAM bank (core == kDramCore)
    int32_t delta;
  };
  static constexpr int32_t kNocReads = -1, kNocWrites = -2;
  static constexpr uint32_t kDramCore = 0xffffffffu;

  void add_transfer(int core, bool is_read, int dram_bank, uint64_t issued, uint64_t done);

 private:
  friend class TracedCall;
  TraceRecorder(std::string path, std::vector<bool> traced_cores, uint64_t max_slices);
  bool traced(uint32_t core) const { return traced_cores_[core]; }
  // Adds the waiting and busy slices of one call on one track; returns the index of the
  // slice flows attach to (busy if any, else waiting), or -1 when the call took no time.
  int64_t add_call(uint32_t core, Track track, const char* name, const TracedCall& call, uint64_t start,
                   uint64_t waited, uint64_t worked);
  void cb_event(uint32_t core, const TracedCall& call, int64_t slice, uint64_t time);
  void write(Device& device) const;

  struct CbPages {
    bool initialized = false;
    std::deque<int64_t> filled;  // per held page: the push slice that filled it
    std::deque<int64_t> free;    // per free page: the pop slice that freed it (-1: never used)
  };
  CbPages& cb_pages(uint32_t core, int32_t cb);

  std::string path_;
  std::vector<bool> traced_cores_;
  uint64_t max_slices_;
  std::vector<Slice> slices_;
  std::vector<Flow> flows_;
  std::vector<CounterStep> counters_;
  std::vector<std::vector<CbPages>> cbs_;  // [core][cb]
};

inline void trace_noc_transfer(int core, bool is_read, int dram_bank, uint64_t issued, uint64_t done) {
  if (g_trace) g_trace->add_transfer(core, is_read, dram_bank, issued, done);
}

}  // namespace ttemu
