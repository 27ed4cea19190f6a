#include "math_lanes.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

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

namespace {
// Per host thread: recently unpacked CB pages, direct-mapped by page address.
class UnpackedPages {
 public:
  // The unpacked page; `avoid` is a slot the caller still uses (the other operand's).
  const float* get(const uint8_t* page, uint64_t version, DataFormat format, const float* avoid = nullptr) {
    size_t slot = (reinterpret_cast<uintptr_t>(page) / 2048 * 0x9E3779B1u >> 8) % kEntries;
    if (entries_[slot].values == avoid) slot ^= 1;
    Entry& entry = entries_[slot];
    if (entry.page != page || entry.version != version || entry.format != format) {
      unpack_tile(page, format, entry.values);
      entry.page = page;
      entry.version = version;
      entry.format = format;
    }
    return entry.values;
  }

 private:
  // Enough for the in0 and in1 blocks of a large matmul K block (~1 MiB).
  static constexpr size_t kEntries = 256;
  struct Entry {
    alignas(64) float values[kTileElements];
    const uint8_t* page = nullptr;
    uint64_t version = 0;
    DataFormat format = DataFormat::Invalid;
  };
  std::unique_ptr<Entry[]> entries_{new Entry[kEntries]};
};
}  // namespace

void run_matmul_job(const MatmulJob& job) {
  thread_local UnpackedPages unpacked;
  const float* a = unpacked.get(job.a, job.a_version, job.a_format);
  const float* b = unpacked.get(job.b, job.b_version, job.b_format, a);
  matmul_accumulate_tile(a, b, job.transpose_b, job.round_to_bf16, job.dst);
}

int MathLanes::default_threads() {
  if (const char* text = std::getenv("TTEMU_THREADS")) return std::max(1, std::atoi(text));
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
}

MathLanes::MathLanes(int threads) {
  static std::atomic<uint64_t> instances{0};
  instance_ = ++instances << 48;
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

void MathLanes::submit(uint32_t chain, const MatmulJob& submitted) {
  MatmulJob job = submitted;
  job.a_version |= instance_;
  job.b_version |= instance_;
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
