// Tile matmuls deferred and run on several host threads, without changing results.
//
// matmul_tiles is most of an emulated matmul's host time. Instead of computing it at
// the call, the kernel API submits a job and keeps going. Jobs accumulating into the
// same DST tile of a core form a chain that one thread runs in submission order, so
// every tile's accumulations happen in program order and the results are bit-identical
// to running inline; the virtual clocks never depend on host timing.
// A core's chains may start once its math section is committed (seal: no more jobs
// can join them); helper threads run sealed chains in the background while the
// emulation goes on. The kernel API waits for a core's chains (drain) before anything
// else on that core reads or writes DST and before a CB of that core is popped (the
// jobs read its pages), so kernels never observe a pending job.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
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
  // `threads` host threads in all, counting the caller's (1: jobs run at submit).
  MathLanes(int threads, int cores);
  ~MathLanes();
  MathLanes(const MathLanes&) = delete;
  MathLanes& operator=(const MathLanes&) = delete;

  // A job of `core` into its DST tile `tile`.
  void submit(int core, uint32_t tile, const MatmulJob& job);
  // The core's submitted jobs are complete chains: threads may start them.
  void seal(int core);
  // Returns when every job the core submitted has run (the caller helps).
  void drain(int core);
  void drain_all();

  // Threads to use: $TTEMU_THREADS if set, else the host's CPUs (at most 8).
  static int default_threads();

 private:
  struct Chain {
    int core = 0;
    std::vector<MatmulJob> jobs;
  };
  void helper_loop();
  // Runs one sealed chain if there is one; returns whether it did.
  bool run_one_chain();

  bool inline_ = false;
  // Per core, its open chains by DST tile (the emulation thread's only).
  std::vector<std::vector<Chain>> open_;
  std::vector<std::vector<int>> open_index_;
  std::unique_ptr<std::atomic<int>[]> unfinished_;  // per core: submitted, not yet run
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Chain> sealed_;  // guarded by mutex_
  std::atomic<size_t> sealed_count_{0};
  bool stopping_ = false;  // guarded by mutex_
  std::vector<std::thread> helpers_;
  // Distinguishes this device's pages from an earlier device's at the same addresses
  // in the threads' unpacked-page caches (several devices in one process: C++ tests).
  uint64_t instance_;
};

}  // namespace ttemu
