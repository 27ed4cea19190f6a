// A circular buffer: a ring of pages in a core's L1 shared by one producer thread
// (reserve_back/push_back) and one consumer thread (wait_front/pop_front), blocking as
// on hardware, with every misuse reported: reserve larger than the CB, push beyond
// capacity or beyond what was reserved, wait larger than the CB, pop more than was
// pushed or waited for, tile indices past the pages held or past the ring's end.
#pragma once

#include <cstdint>
#include <string>

#include "scheduler.h"
#include "ttemu/kernel_bridge.h"

namespace ttemu {

class CircularBuffer {
 public:
  CircularBuffer() = default;
  void configure(uint32_t id, uint32_t num_pages, uint32_t page_size, DataFormat format, uint8_t* base);

  bool configured() const { return base_ != nullptr; }
  uint8_t* base() const { return base_; }
  uint32_t id() const { return id_; }
  uint32_t num_pages() const { return num_pages_; }
  uint32_t page_size() const { return page_size_; }
  DataFormat format() const { return format_; }
  uint32_t pages_filled() const { return pushed_ - popped_; }
  uint32_t pages_free() const { return num_pages_ - pages_filled(); }
  // Pushed pages no cb_wait_front has covered (a waited page kept unpopped, a constant
  // such as a reduce scaler, was read).
  uint32_t pages_never_waited() const { return pages_filled() - waited_; }
  // The version of the pages waited for: a waited page's contents are fixed until it is
  // popped, so (page, version) names them (math_lanes.h keeps unpacked pages by that
  // name). Each pop takes a new version from a counter all CBs share, so CBs sharing L1
  // (tt-metal's indices of one buffer) never name different contents alike.
  uint64_t version() const { return version_; }

  // Blocking calls, from a fiber of `scheduler`. Each page remembers when it was
  // pushed and popped: wait_front returns when its pages were pushed, reserve_back
  // when its pages were freed (a compute kernel's packer pushes on its own clock, which
  // may run ahead of the fiber's). push_back/pop_front take the time they happen at.
  uint64_t wait_front(Scheduler& scheduler, uint32_t num_pages);
  uint64_t reserve_back(Scheduler& scheduler, uint32_t num_pages);
  void pop_front(Scheduler& scheduler, uint32_t num_pages, uint64_t time);
  void push_back(Scheduler& scheduler, uint32_t num_pages, uint64_t time);

  // The L1 address of the `index`-th page after the back (push) or front (pop).
  uint8_t* back_page_address(uint32_t index) const { return page_address((write_page_ + index) % num_pages_); }
  uint8_t* front_page_address(uint32_t index) const { return page_address((read_page_ + index) % num_pages_); }
  uint8_t* read_ptr() const { return page_address(read_page_); }
  uint8_t* write_ptr() const { return page_address(write_page_); }
  // Page `index` after the front (compute reads): must have been waited for.
  uint8_t* front_page(uint32_t index, const char* call) const;
  // Page `index` after the back (pack with an explicit index): must have been reserved.
  uint8_t* back_page(uint32_t index, const char* call) const;
  // Fails unless the CB's pages hold whole tiles of its format (for compute calls).
  void check_holds_tiles(const char* call) const;
  // The next page in order for a sequential pack_tile.
  uint8_t* next_pack_page(const char* call);

 private:
  uint8_t* page_address(uint32_t page) const { return base_ + static_cast<size_t>(page) * page_size_; }
  std::string prefix() const;

  uint32_t id_ = 0;
  uint32_t num_pages_ = 0;
  uint32_t page_size_ = 0;
  DataFormat format_ = DataFormat::Float16_b;
  uint8_t* base_ = nullptr;
  uint32_t pushed_ = 0;  // pages pushed since start (wraps like the hardware counters)
  uint32_t popped_ = 0;
  uint32_t read_page_ = 0;
  uint32_t write_page_ = 0;
  uint32_t waited_ = 0;    // pages the consumer waited for and has not popped
  uint32_t reserved_ = 0;  // pages the producer reserved and has not pushed
  uint32_t packed_ = 0;    // pages packed sequentially since the last push
  uint64_t version_ = 0;
  std::vector<uint64_t> pushed_at_;  // per page: when it was last pushed
  std::vector<uint64_t> popped_at_;  // per page: when it was last popped
  Fiber* blocked_consumer_ = nullptr;
  Fiber* blocked_producer_ = nullptr;
};

}  // namespace ttemu
