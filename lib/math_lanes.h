// Tile matmuls deferred and run on several host threads, without changing results.
//
// matmul_tiles is most of an emulated matmul's host time. Instead of computing it at
// the call, the kernel API submits a job and keeps going. Jobs accumulating into the
// same DST tile form a chain that runs in submission order on one thread, so every
// tile's accumulations happen in program order and results are bit-identical to
// running inline; the virtual clocks never depend on host timing. At drain() the
// calling thread and the helper threads take whole chains until none is left (the
// caller never waits for a helper that is not running, only for a chain a helper has
// started). The kernel API drains before anything else reads or writes DST and before
// the compute thread pops a CB (the jobs read its pages), so kernels never observe a
// pending job.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ttemu/kernel_bridge.h"

namespace ttemu {

// dst += a @ b (b transposed if asked), then DST rounded to bf16 unless it is fp32.
// The versions are the CBs' pop counts when the job was made: a waited page cannot
// change before it is popped, so (page, version) names its contents and each thread
// keeps unpacked pages by that name (a tile feeds several matmuls).
struct MatmulJob {
  const uint8_t* a;
  const uint8_t* b;
  uint64_t a_version;
  uint64_t b_version;
  DataFormat a_format;
  DataFormat b_format;
  bool transpose_b;
  bool round_to_bf16;
  float* dst;
};

void run_matmul_job(const MatmulJob& job);

class MathLanes {
 public:
  // `threads` host threads in all, counting the caller's (1: no helpers).
  explicit MathLanes(int threads);
  ~MathLanes();
  MathLanes(const MathLanes&) = delete;
  MathLanes& operator=(const MathLanes&) = delete;

  // Jobs with equal `chain` (one per DST tile) run in submission order.
  void submit(uint32_t chain, const MatmulJob& job);
  // Runs every submitted job to completion.
  void drain();

  // Threads to use: $TTEMU_THREADS if set, else the host's CPUs (at most 8).
  static int default_threads();

 private:
  void helper_loop();
  // Takes and runs chains of the current drain until none is left.
  void run_chains();

  std::vector<std::vector<MatmulJob>> chains_;
  std::unordered_map<uint32_t, size_t> chain_of_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool draining_ = false;  // guarded by mutex_
  size_t next_chain_ = 0;  // guarded by mutex_
  uint64_t drains_ = 0;    // guarded by mutex_: helpers join each drain once
  // drains_, readable without the lock: helpers poll it briefly before sleeping,
  // since drains come every few microseconds during a matmul.
  std::atomic<uint64_t> drains_started_{0};
  std::atomic<size_t> unfinished_{0};
  bool stopping_ = false;  // guarded by mutex_
  std::vector<std::thread> helpers_;
  // Distinguishes this device's pages from an earlier device's at the same addresses
  // in the threads' unpacked-page caches (several devices in one process: C++ tests).
  uint64_t instance_;
};

}  // namespace ttemu
