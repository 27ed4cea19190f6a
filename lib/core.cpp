#include "core.h"

#include <algorithm>

#include "errors.h"

namespace ttemu {

const char* thread_kind_name(ThreadKind kind) {
  switch (kind) {
    case ThreadKind::Reader: return "reader";
    case ThreadKind::Compute: return "compute";
    case ThreadKind::Writer: return "writer";
  }
  return "?";
}

CircularBuffer& Core::cb(uint32_t id, const char* call) {
  if (id >= cbs_.size() || !cbs_[id].configured())
    fail(std::string(call) + ": cb " + std::to_string(id) + " is not configured in the program");
  return cbs_[id];
}

void Core::wake_semaphore_waiters(Scheduler& scheduler, uint64_t time) {
  std::vector<SemaphoreWaiter> waiters;
  waiters.swap(semaphore_waiters_);
  for (const SemaphoreWaiter& waiter : waiters) scheduler.wake(*waiter.fiber, time);
}

bool Core::wake_satisfied_semaphore_waiters(Scheduler& scheduler) {
  uint64_t latest = 0;
  for (const KernelThread& thread : threads_)
    if (thread.fiber) latest = std::max(latest, thread.fiber->clock());
  bool woken = false;
  std::vector<SemaphoreWaiter> still_waiting;
  for (const SemaphoreWaiter& waiter : semaphore_waiters_) {
    if (waiter.satisfied()) {
      scheduler.wake(*waiter.fiber, latest);
      woken = true;
    } else {
      still_waiting.push_back(waiter);
    }
  }
  semaphore_waiters_.swap(still_waiting);
  return woken;
}

}  // namespace ttemu
