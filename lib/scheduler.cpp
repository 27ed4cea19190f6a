#include "scheduler.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace ttemu {

namespace {
// Kernels may keep tile-sized arrays on their stack; the pages are only committed when
// touched, so a generous size costs nothing.
constexpr size_t kFiberStackBytes = 1u << 20;
}  // namespace

Fiber::Fiber(int id, std::function<void()> body) : id_(id), body_(std::move(body)) {
  stack_size_ = kFiberStackBytes;
  stack_ = mmap(nullptr, stack_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
  if (stack_ == MAP_FAILED) throw std::runtime_error("cannot allocate a fiber stack");
}

Fiber::~Fiber() {
  if (stack_ && stack_ != MAP_FAILED) munmap(stack_, stack_size_);
}

void Fiber::trampoline(unsigned int hi, unsigned int lo) {
  auto* fiber = reinterpret_cast<Fiber*>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo));
  fiber->body_();
  fiber->state_ = State::Done;
  // uc_link returns to the scheduler.
}

Fiber& Scheduler::spawn(int id, std::function<void()> body) {
  fibers_.push_back(std::make_unique<Fiber>(id, std::move(body)));
  Fiber& fiber = *fibers_.back();
  getcontext(&fiber.context_);
  fiber.context_.uc_stack.ss_sp = fiber.stack_;
  fiber.context_.uc_stack.ss_size = fiber.stack_size_;
  fiber.context_.uc_link = &scheduler_context_;
  auto address = reinterpret_cast<uintptr_t>(&fiber);
  makecontext(&fiber.context_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2,
              static_cast<unsigned int>(address >> 32), static_cast<unsigned int>(address & 0xffffffffu));
  ready_.push({0, id, &fiber});
  return fiber;
}

bool Scheduler::run() {
  for (;;) {
    bool have_fiber = !ready_.empty();
    bool have_event = !events_.empty();
    if (!have_fiber && !have_event) break;
    if (have_event && (!have_fiber || events_.top().time <= ready_.top().clock)) {
      Event event = events_.top();
      events_.pop();
      event.action();
      continue;
    }
    Fiber* fiber = ready_.top().fiber;
    ready_.pop();
    fiber->state_ = Fiber::State::Running;
    current_ = fiber;
    swapcontext(&scheduler_context_, &fiber->context_);
    current_ = nullptr;
    if (fiber->state_ == Fiber::State::Running) {
      fiber->state_ = Fiber::State::Ready;
      ready_.push({fiber->clock_, fiber->id_, fiber});
    }
  }
  return blocked_fibers().empty();
}

std::vector<const Fiber*> Scheduler::blocked_fibers() const {
  std::vector<const Fiber*> blocked;
  for (const auto& fiber : fibers_)
    if (fiber->state_ == Fiber::State::Blocked) blocked.push_back(fiber.get());
  return blocked;
}

void Scheduler::switch_to_scheduler() { swapcontext(&current_->context_, &scheduler_context_); }

bool Scheduler::earlier_than_current() const {
  uint64_t clock = current_->clock_;
  if (!events_.empty() && events_.top().time <= clock) return true;
  if (ready_.empty()) return false;
  const ReadyEntry& top = ready_.top();
  return top.clock < clock || (top.clock == clock && top.id < current_->id_);
}

void Scheduler::sync_point() {
  if (earlier_than_current()) switch_to_scheduler();
}

void Scheduler::wait_until(uint64_t time) {
  if (time > current_->clock_) {
    current_->waiting_ += time - current_->clock_;
    current_->clock_ = time;
  }
}

void Scheduler::block(std::function<std::string()> describe) {
  current_->state_ = Fiber::State::Blocked;
  current_->describe_wait_ = std::move(describe);
  switch_to_scheduler();
  current_->describe_wait_ = nullptr;
}

void Scheduler::wake(Fiber& fiber, uint64_t time) {
  if (fiber.state_ != Fiber::State::Blocked) return;
  if (time > fiber.clock_) {
    fiber.waiting_ += time - fiber.clock_;
    fiber.clock_ = time;
  }
  fiber.state_ = Fiber::State::Ready;
  ready_.push({fiber.clock_, fiber.id_, &fiber});
}

void Scheduler::schedule(uint64_t time, std::function<void()> action) {
  events_.push({time, event_sequence_++, std::move(action)});
}

}  // namespace ttemu
