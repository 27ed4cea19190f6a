#include "math_lanes.h"

#include <algorithm>
#include <cstdlib>

#include "numerics.h"
#include "tile_math.h"

namespace ttemu {

namespace {
// About 100 microseconds of polling before a helper sleeps.
constexpr int kHelperPolls = 1 << 12;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

void run_matmul_job(const MatmulJob& job) {
  alignas(64) float a[kTileElements], b[kTileElements];
  unpack_tile(job.a, job.a_format, a);
  unpack_tile(job.b, job.b_format, b);
  matmul_accumulate_tile(a, b, job.transpose_b, job.round_to_bf16, job.dst);
}

int MathLanes::default_threads() {
  if (const char* text = std::getenv("TTEMU_THREADS")) return std::max(1, std::atoi(text));
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
}

MathLanes::MathLanes(int threads) {
  for (int i = 1; i < threads; ++i) helpers_.emplace_back([this] { helper_loop(); });
}

MathLanes::~MathLanes() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
}

void MathLanes::submit(uint32_t chain, const MatmulJob& job) {
  if (helpers_.empty()) {
    run_matmul_job(job);
    return;
  }
  auto [found, added] = chain_of_.emplace(chain, chains_.size());
  if (added) chains_.emplace_back();
  chains_[found->second].push_back(job);
}

void MathLanes::run_chains() {
  for (;;) {
    size_t chain;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!draining_ || next_chain_ >= chains_.size()) return;
      chain = next_chain_++;
    }
    for (const MatmulJob& job : chains_[chain]) run_matmul_job(job);
    unfinished_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void MathLanes::drain() {
  if (chains_.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    draining_ = true;
    next_chain_ = 0;
    unfinished_.store(chains_.size(), std::memory_order_release);
    ++drains_;
    drains_started_.store(drains_, std::memory_order_release);
  }
  wake_.notify_all();
  run_chains();
  // Only chains a helper already started remain.
  for (int polls = 0; unfinished_.load(std::memory_order_acquire) != 0; ++polls) {
    if (polls < 4096)
      cpu_relax();
    else
      std::this_thread::yield();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    draining_ = false;
  }
  chains_.clear();
  chain_of_.clear();
}

void MathLanes::helper_loop() {
  uint64_t joined = 0;
  for (;;) {
    for (int polls = 0; polls < kHelperPolls && drains_started_.load(std::memory_order_acquire) == joined; ++polls)
      cpu_relax();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || (draining_ && drains_ != joined); });
      if (stopping_) return;
      joined = drains_;
    }
    run_chains();
  }
}

}  // namespace ttemu
