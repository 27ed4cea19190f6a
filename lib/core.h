// One Tensix core: its L1, circular buffers, DST registers and kernel threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cb.h"
#include "dst.h"
#include "scheduler.h"

namespace ttemu {

enum class ThreadKind { Reader = 0, Compute = 1, Writer = 2 };
constexpr int kThreadsPerCore = 3;
const char* thread_kind_name(ThreadKind kind);

class Core;

// One kernel running on one core (a RISC-V thread on hardware, a fiber here).
struct KernelThread {
  Core* core = nullptr;
  ThreadKind kind = ThreadKind::Reader;
  int noc = 0;  // the NoC its kernel's transfers travel on unless a call names the other
  std::string kernel_name;
  void (*entry)() = nullptr;
  std::vector<uint32_t> runtime_args;
  Fiber* fiber = nullptr;
  uint64_t reads_done_at = 0;   // completion of the last outstanding NoC read
  uint32_t read_trid = 0;       // the transaction id the thread's next reads carry
  uint64_t writes_done_at = 0;  // completion of the last outstanding NoC write
  // Transfers in flight, so that a race shows: a read's bytes land in L1 only when the
  // thread waits for it (noc_async_read_barrier), and a CB page handed on while a
  // transfer still uses it is reported (kernel_api.cpp, cb_push_back/cb_pop_front).
  struct Transfer {
    uint8_t* l1;                // the L1 range the transfer writes (reads) or reads (writes)
    uint32_t size;
    uint64_t done;              // when the NoC completes it
    std::vector<uint8_t> data;  // a read's bytes, taken from the source at issue
    uint32_t trid = 0;          // a read's transaction id (noc_async_read_set_trid)
  };
  std::vector<Transfer> reads_in_flight;
  std::vector<Transfer> writes_in_flight;
  // CB traffic of a compute thread: tiles the unpacker read from CBs (copy_tile and the
  // CB operands of FPU ops, matmul, reduce, transpose, broadcast) and tiles packed.
  uint64_t tiles_unpacked = 0;
  uint64_t tiles_packed = 0;
  // Compute kernels: hardware packs on its own RISC-V (TRISC2) beside math, and half
  // sync splits DST in two so math fills one half while pack drains the other. The
  // fiber's clock is math's (unpack included); the packer keeps its own clock, and
  // tile_regs_acquire waits until the half it gets was released by the packer.
  uint64_t pack_clock = 0;
  uint64_t pack_busy = 0;  // cycles of pack_clock the packer worked (the rest it waited)
  bool pack_l1_acc = false;  // pack_reconfig_l1_acc: pack_tile adds to the page's values
  // reduce_init's packer edge masks (none after reduce_uninit): what pack_tile keeps.
  std::optional<ReduceAxis> pack_reduce_mask;
  uint64_t committed_at = 0;
  uint64_t half_free_at[2] = {0, 0};
  uint32_t sections_released = 0;

  // The packer's clock, as Scheduler::wait_until/advance are the fiber's.
  void pack_wait_until(uint64_t time) { pack_clock = std::max(pack_clock, time); }
  void pack_advance(uint64_t cycles) {
    pack_clock += cycles;
    pack_busy += cycles;
  }
};

class Core {
 public:
  Core(int row, int col, int index, uint8_t* l1, uint32_t max_cbs)
      : row_(row), col_(col), index_(index), l1_(l1), cbs_(max_cbs) {}

  int row() const { return row_; }
  int col() const { return col_; }
  int index() const { return index_; }
  uint8_t* l1() const { return l1_; }
  DstRegisters& dst() { return dst_; }
  CircularBuffer& cb(uint32_t id, const char* call);
  std::vector<CircularBuffer>& cbs() { return cbs_; }
  std::vector<KernelThread>& threads() { return threads_; }
  const std::vector<KernelThread>& threads() const { return threads_; }
  uint64_t flops() const { return flops_; }
  void add_flops(uint64_t flops) { flops_ += flops; }

  // A thread blocked in noc_semaphore_wait(_min) on a semaphore of this core.
  struct SemaphoreWaiter {
    Fiber* fiber;
    volatile uint32_t* address;
    uint32_t value;
    bool at_least;
    bool satisfied() const { return at_least ? *address >= value : *address == value; }
  };
  void add_semaphore_waiter(const SemaphoreWaiter& waiter) { semaphore_waiters_.push_back(waiter); }
  // A semaphore of this core changed at `time`: its waiters re-check.
  void wake_semaphore_waiters(Scheduler& scheduler, uint64_t time);
  // Wakes the waiters whose condition holds although no API call changed the
  // semaphore (a kernel stored to it directly), at the core's latest thread clock.
  // Returns whether any was woken.
  bool wake_satisfied_semaphore_waiters(Scheduler& scheduler);

  std::string label() const { return "core (" + std::to_string(row_) + "," + std::to_string(col_) + ")"; }

 private:
  int row_;
  int col_;
  int index_;
  uint8_t* l1_;
  std::vector<CircularBuffer> cbs_;
  DstRegisters dst_;
  std::vector<KernelThread> threads_;
  std::vector<SemaphoreWaiter> semaphore_waiters_;
  uint64_t flops_ = 0;
};

}  // namespace ttemu
