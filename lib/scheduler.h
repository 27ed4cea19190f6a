// A deterministic discrete-event scheduler of cooperative fibers with virtual clocks.
//
// Every kernel thread (reader, compute, writer of every core) is a fiber with its own
// virtual clock in cycles. The scheduler always resumes the ready fiber with the
// smallest (clock, id), and timed events (e.g. a semaphore increment arriving over
// the NoC) run when their time is the smallest. A fiber reaching a synchronising call
// first yields until it is the earliest, so every interaction between threads happens
// in virtual-time order and the results and cycle counts are deterministic.
#pragma once

#include <ucontext.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

namespace ttemu {

class Fiber {
 public:
  enum class State { Ready, Running, Blocked, Done };

  Fiber(int id, std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  int id() const { return id_; }
  State state() const { return state_; }
  uint64_t clock() const { return clock_; }
  uint64_t busy_cycles() const { return busy_; }
  uint64_t waiting_cycles() const { return waiting_; }
  // What a blocked fiber waits for, described when a deadlock is reported.
  std::string describe_wait() const { return describe_wait_ ? describe_wait_() : "(unknown)"; }

 private:
  friend class Scheduler;
  static void trampoline(unsigned int hi, unsigned int lo);

  int id_;
  std::function<void()> body_;
  State state_ = State::Ready;
  uint64_t clock_ = 0;
  uint64_t busy_ = 0;
  uint64_t waiting_ = 0;
  std::function<std::string()> describe_wait_;
  ucontext_t context_{};
  void* stack_ = nullptr;
  size_t stack_size_ = 0;
};

class Scheduler {
 public:
  Scheduler() = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Fibers run in id order at equal clocks; ids must be unique.
  Fiber& spawn(int id, std::function<void()> body);
  // Runs until every fiber is done (returns true) or none can progress (returns false:
  // the blocked fibers are a deadlock, see blocked_fibers()).
  bool run();
  std::vector<const Fiber*> blocked_fibers() const;

  // ---- called from inside the running fiber ----
  Fiber& current() { return *current_; }
  const Fiber& current() const { return *current_; }
  bool in_fiber() const { return current_ != nullptr; }
  uint64_t now() const { return current_->clock_; }
  // Charge `cycles` of work to the running fiber.
  void advance(uint64_t cycles) {
    current_->clock_ += cycles;
    current_->busy_ += cycles;
  }
  // Wait (idle) until `time` if it is in the running fiber's future.
  void wait_until(uint64_t time);
  // Yield until the running fiber is the earliest thing in the simulation.
  void sync_point();
  // Block the running fiber until wake(); `describe` says what it waits for.
  void block(std::function<std::string()> describe);
  // Make a blocked fiber ready; its clock becomes at least `time`.
  void wake(Fiber& fiber, uint64_t time);
  // Run `action` at virtual time `time` (before fibers at the same time).
  void schedule(uint64_t time, std::function<void()> action);

 private:
  struct ReadyEntry {
    uint64_t clock;
    int id;
    Fiber* fiber;
    bool operator>(const ReadyEntry& other) const {
      return clock != other.clock ? clock > other.clock : id > other.id;
    }
  };
  struct Event {
    uint64_t time;
    uint64_t sequence;
    std::function<void()> action;
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };
  void switch_to_scheduler();
  bool earlier_than_current() const;

  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<ReadyEntry>> ready_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t event_sequence_ = 0;
  Fiber* current_ = nullptr;
  ucontext_t scheduler_context_{};
};

}  // namespace ttemu
