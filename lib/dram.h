// Device DRAM: buffers of tile pages interleaved round-robin over the device's banks.
//
// A buffer gets the same base address in every bank (as tt-metal's allocator does);
// with B banks, page p lives in bank p % B at base + (p / B) * page_size. Any access
// outside the pages of an allocated buffer is an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ttemu/kernel_bridge.h"

namespace ttemu {

class Dram {
 public:
  // First allocatable bank address (below it: reserved, as on hardware); estimate.
  static constexpr uint32_t kFirstAddress = 0x20000;
  static constexpr uint32_t kAlignment = 64;

  // `bank_bytes` is capped below 4 GiB: kernels hold bank addresses in 32 bits.
  Dram(int banks, uint64_t bank_bytes);
  int banks() const { return banks_; }

  struct Buffer {
    std::string name;
    DataFormat format;
    uint32_t page_size;
    uint32_t num_pages;
    uint32_t base;
    uint64_t bank_footprint;
    std::vector<uint8_t> data;  // pages in page order
  };

  // Allocates a buffer; returns its base address.
  uint32_t allocate(const std::string& name, DataFormat format, uint32_t num_pages, uint32_t page_size);
  Buffer* find(const std::string& name);
  const std::vector<Buffer>& buffers() const { return buffers_; }

  // Copy `size` bytes at (bank, address) out of / into DRAM; out-of-bounds fails.
  void read(int bank, uint32_t address, uint8_t* destination, uint32_t size) const;
  void write(int bank, uint32_t address, const uint8_t* source, uint32_t size);

 private:
  // Calls visit(host pointer, chunk size) for each within-page chunk of an access.
  template <typename Visit>
  void for_each_chunk(int bank, uint32_t address, uint32_t size, const char* what, Visit visit) const;

  int banks_;
  uint64_t bank_bytes_;
  std::vector<Buffer> buffers_;
  uint64_t next_address_ = kFirstAddress;
};

}  // namespace ttemu
