#include "cb.h"

#include <algorithm>

#include "errors.h"
#include "numerics.h"

namespace ttemu {

namespace {
// Page versions (CircularBuffer::version), unique in the process; below bit 48, where
// math_lanes.cpp marks the device instance.
uint64_t next_page_version() {
  static uint64_t next = 0;
  return ++next;
}
}  // namespace

void CircularBuffer::configure(uint32_t id, uint32_t num_pages, uint32_t page_size, DataFormat format,
                               uint8_t* base) {
  id_ = id;
  num_pages_ = num_pages;
  page_size_ = page_size;
  format_ = format;
  base_ = base;
  version_ = next_page_version();
  pushed_at_.assign(num_pages, 0);
  popped_at_.assign(num_pages, 0);
}

std::string CircularBuffer::prefix() const { return "cb " + std::to_string(id_) + ": "; }

uint64_t CircularBuffer::wait_front(Scheduler& scheduler, uint32_t num_pages) {
  if (num_pages > num_pages_)
    fail(prefix() + "cb_wait_front(" + std::to_string(num_pages) + ") waits for more pages than the CB holds (" +
         std::to_string(num_pages_) + ")");
  scheduler.sync_point();
  while (pages_filled() < num_pages) {
    blocked_consumer_ = &scheduler.current();
    scheduler.block([this, num_pages] {
      return prefix() + "cb_wait_front wants " + std::to_string(num_pages) + " page(s), " +
             std::to_string(pages_filled()) + " available";
    });
  }
  waited_ = std::max(waited_, num_pages);
  uint64_t ready = 0;
  for (uint32_t i = 0; i < num_pages; ++i) ready = std::max(ready, pushed_at_[(read_page_ + i) % num_pages_]);
  return ready;
}

uint64_t CircularBuffer::reserve_back(Scheduler& scheduler, uint32_t num_pages) {
  if (num_pages > num_pages_)
    fail(prefix() + "cb_reserve_back(" + std::to_string(num_pages) + ") reserves more pages than the CB holds (" +
         std::to_string(num_pages_) + ")");
  scheduler.sync_point();
  while (pages_free() < num_pages) {
    blocked_producer_ = &scheduler.current();
    scheduler.block([this, num_pages] {
      return prefix() + "cb_reserve_back wants " + std::to_string(num_pages) + " free page(s), " +
             std::to_string(pages_free()) + " free";
    });
  }
  reserved_ = std::max(reserved_, num_pages);
  uint64_t ready = 0;
  for (uint32_t i = 0; i < num_pages; ++i) ready = std::max(ready, popped_at_[(write_page_ + i) % num_pages_]);
  return ready;
}

void CircularBuffer::push_back(Scheduler& scheduler, uint32_t num_pages, uint64_t time) {
  scheduler.sync_point();
  if (num_pages > pages_free())
    fail(prefix() + "cb_push_back(" + std::to_string(num_pages) + ") pushes beyond the CB's capacity (" +
         std::to_string(pages_free()) + " of " + std::to_string(num_pages_) + " pages free)");
  if (num_pages > reserved_)
    fail(prefix() + "cb_push_back(" + std::to_string(num_pages) + ") pushes pages that were not reserved (" +
         std::to_string(reserved_) + " reserved)");
  for (uint32_t i = 0; i < num_pages; ++i) pushed_at_[(write_page_ + i) % num_pages_] = time;
  reserved_ -= num_pages;
  pushed_ += num_pages;
  write_page_ = (write_page_ + num_pages) % num_pages_;
  packed_ = 0;
  if (blocked_consumer_) {
    Fiber* consumer = blocked_consumer_;
    blocked_consumer_ = nullptr;
    scheduler.wake(*consumer, time);
  }
}

void CircularBuffer::pop_front(Scheduler& scheduler, uint32_t num_pages, uint64_t time) {
  scheduler.sync_point();
  if (num_pages > pages_filled())
    fail(prefix() + "cb_pop_front(" + std::to_string(num_pages) + ") pops more pages than were pushed (" +
         std::to_string(pages_filled()) + " available)");
  if (num_pages > waited_)
    fail(prefix() + "cb_pop_front(" + std::to_string(num_pages) + ") pops pages it did not wait for (waited for " +
         std::to_string(waited_) + ")");
  for (uint32_t i = 0; i < num_pages; ++i) popped_at_[(read_page_ + i) % num_pages_] = time;
  waited_ -= num_pages;
  popped_ += num_pages;
  version_ = next_page_version();
  read_page_ = (read_page_ + num_pages) % num_pages_;
  if (blocked_producer_) {
    Fiber* producer = blocked_producer_;
    blocked_producer_ = nullptr;
    scheduler.wake(*producer, time);
  }
}

uint8_t* CircularBuffer::front_page(uint32_t index, const char* call) const {
  if (index >= waited_)
    fail(prefix() + call + " reads tile " + std::to_string(index) + " but only " + std::to_string(waited_) +
         " page(s) were waited for (cb_wait_front)");
  if (read_page_ + index >= num_pages_)
    fail(prefix() + call + " reads tile " + std::to_string(index) + " past the end of the CB's memory (front at page " +
         std::to_string(read_page_) + " of " + std::to_string(num_pages_) +
         "; make the CB a multiple of the block size)");
  return page_address(read_page_ + index);
}

void CircularBuffer::check_holds_tiles(const char* call) const {
  uint32_t tile_bytes = format_tile_bytes(format_);
  if (page_size_ < tile_bytes)
    fail(prefix() + call + " needs whole tiles, but the CB's pages are " + std::to_string(page_size_) +
         " bytes (a tile is " + std::to_string(tile_bytes) + ")");
}

uint8_t* CircularBuffer::back_page(uint32_t index, const char* call) const {
  if (index >= reserved_)
    fail(prefix() + call + " writes tile " + std::to_string(index) + " but only " + std::to_string(reserved_) +
         " page(s) were reserved (cb_reserve_back)");
  if (write_page_ + index >= num_pages_)
    fail(prefix() + call + " writes tile " + std::to_string(index) +
         " past the end of the CB's memory (back at page " + std::to_string(write_page_) + " of " +
         std::to_string(num_pages_) + "; make the CB a multiple of the block size)");
  return page_address(write_page_ + index);
}

uint8_t* CircularBuffer::next_pack_page(const char* call) {
  uint8_t* page = back_page(packed_, call);
  ++packed_;
  return page;
}

}  // namespace ttemu
