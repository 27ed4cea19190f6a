#include "math_lanes.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "numerics.h"
#include "tile_math.h"

namespace ttemu {

namespace {
// About 100 microseconds of polling before a helper sleeps.
constexpr int kHelperPolls = 1 << 15;

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

MathLanes::MathLanes(int threads, int cores)
    : inline_(threads <= 1), open_(cores), open_index_(cores), unfinished_(new std::atomic<int>[cores]) {
  static std::atomic<uint64_t> instances{0};
  instance_ = ++instances << 48;
  for (int core = 0; core < cores; ++core) unfinished_[core] = 0;
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

void MathLanes::submit(int core, uint32_t tile, const MatmulJob& submitted) {
  MatmulJob job = submitted;
  job.a_version |= instance_;
  job.b_version |= instance_;
  if (inline_) {
    run_matmul_job(job);
    return;
  }
  std::vector<int>& index = open_index_[core];
  if (index.size() <= tile) index.resize(tile + 1, -1);
  if (index[tile] < 0) {
    index[tile] = static_cast<int>(open_[core].size());
    open_[core].push_back(Chain{core, {}});
    unfinished_[core].fetch_add(1, std::memory_order_relaxed);
  }
  open_[core][index[tile]].jobs.push_back(job);
}

void MathLanes::seal(int core) {
  if (inline_ || open_[core].empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Chain& chain : open_[core]) sealed_.push_back(std::move(chain));
    sealed_count_.store(sealed_.size(), std::memory_order_release);
  }
  wake_.notify_all();
  open_[core].clear();
  open_index_[core].clear();
}

bool MathLanes::run_one_chain() {
  Chain chain;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sealed_.empty()) return false;
    chain = std::move(sealed_.front());
    sealed_.pop_front();
    sealed_count_.store(sealed_.size(), std::memory_order_release);
  }
  for (const MatmulJob& job : chain.jobs) run_matmul_job(job);
  unfinished_[chain.core].fetch_sub(1, std::memory_order_acq_rel);
  return true;
}

void MathLanes::drain(int core) {
  if (inline_) return;
  seal(core);
  // Run sealed chains (this core's or others') until a helper holds the last of ours.
  for (int polls = 0; unfinished_[core].load(std::memory_order_acquire) != 0;) {
    if (run_one_chain()) continue;
    if (++polls < 4096)
      cpu_relax();
    else
      std::this_thread::yield();
  }
}

void MathLanes::drain_all() {
  for (size_t core = 0; core < open_.size(); ++core) drain(static_cast<int>(core));
}

void MathLanes::helper_loop() {
  for (;;) {
    for (int polls = 0; polls < kHelperPolls && sealed_count_.load(std::memory_order_acquire) == 0; ++polls)
      cpu_relax();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !sealed_.empty(); });
      if (stopping_) return;
    }
    while (run_one_chain()) {
    }
  }
}

}  // namespace ttemu
