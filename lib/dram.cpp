#include "dram.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "errors.h"

namespace ttemu {

namespace {
std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}
}  // namespace

Dram::Dram(int banks, uint64_t bank_bytes) : banks_(banks), bank_bytes_(std::min<uint64_t>(bank_bytes, 0xffffffffull)) {}

uint32_t Dram::allocate(const std::string& name, DataFormat format, uint32_t num_pages, uint32_t page_size) {
  uint64_t pages_per_bank = (num_pages + banks_ - 1) / banks_;
  uint64_t footprint = (pages_per_bank * page_size + kAlignment - 1) / kAlignment * kAlignment;
  if (next_address_ + footprint > bank_bytes_)
    fail_setup("DRAM is full: buffer '" + name + "' needs " + std::to_string(footprint) + " bytes per bank");
  Buffer buffer{name, format, page_size, num_pages, static_cast<uint32_t>(next_address_), footprint, {}};
  buffer.data.assign(static_cast<size_t>(num_pages) * page_size, 0);
  next_address_ += footprint;
  buffers_.push_back(std::move(buffer));
  return buffers_.back().base;
}

Dram::Buffer* Dram::find(const std::string& name) {
  for (Buffer& buffer : buffers_)
    if (buffer.name == name) return &buffer;
  return nullptr;
}

template <typename Visit>
void Dram::for_each_chunk(int bank, uint32_t address, uint32_t size, const char* what, Visit visit) const {
  const Buffer* owner = nullptr;
  for (const Buffer& buffer : buffers_)
    if (address >= buffer.base && address < buffer.base + buffer.bank_footprint) owner = &buffer;
  auto out_of_bounds = [&](const std::string& why) {
    fail(std::string("out-of-bounds DRAM ") + what + ": bank " + std::to_string(bank) + " address " + hex(address) +
         ", " + std::to_string(size) + " bytes: " + why);
  };
  if (bank < 0 || bank >= banks_) out_of_bounds("no such bank");
  if (!owner) out_of_bounds("not inside any allocated buffer");
  uint32_t offset = address - owner->base;
  while (size > 0) {
    uint64_t page = static_cast<uint64_t>(offset / owner->page_size) * banks_ + bank;
    uint32_t in_page = offset % owner->page_size;
    if (page >= owner->num_pages)
      out_of_bounds("past the last page of buffer '" + owner->name + "' (" + std::to_string(owner->num_pages) +
                    " pages)");
    uint32_t chunk = std::min(size, owner->page_size - in_page);
    visit(const_cast<uint8_t*>(owner->data.data()) + page * owner->page_size + in_page, chunk);
    size -= chunk;
    offset += chunk;
  }
}

void Dram::read(int bank, uint32_t address, uint8_t* destination, uint32_t size) const {
  for_each_chunk(bank, address, size, "read", [&](uint8_t* host, uint32_t chunk) {
    std::memcpy(destination, host, chunk);
    destination += chunk;
  });
}

void Dram::write(int bank, uint32_t address, const uint8_t* source, uint32_t size) {
  for_each_chunk(bank, address, size, "write", [&](uint8_t* host, uint32_t chunk) {
    std::memcpy(host, source, chunk);
    source += chunk;
  });
}

}  // namespace ttemu
