#include "core.h"

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
  if (id >= kMaxCircularBuffers || !cbs_[id].configured())
    fail(std::string(call) + ": cb " + std::to_string(id) + " is not configured in the program");
  return cbs_[id];
}

void Core::wake_semaphore_waiters(Scheduler& scheduler, uint64_t time) {
  std::vector<Fiber*> waiters;
  waiters.swap(semaphore_waiters_);
  for (Fiber* fiber : waiters) scheduler.wake(*fiber, time);
}

}  // namespace ttemu
