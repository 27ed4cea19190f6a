// tt-metal's data-movement kernel API: CBs, NoC reads/writes to DRAM and other cores,
// interleaved address generators, TensorAccessor, barriers, semaphores, multicast.
//
// NoC coordinates in the emulator are the logical core coordinates: x is the core's
// column in the grid, y its row. A kernel should get them from runtime args or my_x/my_y.
#pragma once

#include <type_traits>

#include "ttemu/kernel_common.h"

// tt-metal's `noc_index`: the NoC of the RISC the kernel runs on (reader: NoC 0, writer:
// NoC 1 on Wormhole), every NoC call's default; a call may name the other NoC.
#define noc_index (::ttemu::thread_noc())
inline constexpr uint32_t NUM_NOCS = 2;

// my_x[noc] / my_y[noc]: this core's NoC coordinates (the same on both NoCs here).
struct TtemuMyCoordinate {
  bool is_x;
  uint8_t operator[](uint32_t noc) const {
    (void)noc;
    return is_x ? ttemu::my_noc_x() : ttemu::my_noc_y();
  }
};
inline constexpr TtemuMyCoordinate my_x{true};
inline constexpr TtemuMyCoordinate my_y{false};

// ---- interleaved address generators (pages round-robin over the DRAM banks) --------
template <bool DRAM>
struct InterleavedAddrGen {
  uint32_t bank_base_address;
  uint32_t page_size;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index) const {
    (void)noc;
    static_assert(DRAM, "L1-interleaved buffers are not emulated");
    return ttemu::dram_page_noc_addr(bank_base_address, id, page_size, offset);
  }
};

template <bool DRAM, uint32_t tile_hw = 1024>
struct InterleavedAddrGenFast {
  uint32_t bank_base_address;
  uint32_t page_size;
  DataFormat data_format;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index) const {
    (void)noc;
    static_assert(DRAM, "L1-interleaved buffers are not emulated");
    return ttemu::dram_page_noc_addr(bank_base_address, id, page_size, offset);
  }
};

template <bool DRAM>
struct InterleavedPow2AddrGenFast {
  uint32_t bank_base_address;
  uint32_t log_base_2_of_page_size;
  uint64_t get_noc_addr(uint32_t id, uint32_t offset = 0, uint8_t noc = noc_index) const {
    (void)noc;
    static_assert(DRAM, "L1-interleaved buffers are not emulated");
    return ttemu::dram_page_noc_addr(bank_base_address, id, 1u << log_base_2_of_page_size, offset);
  }
  uint32_t page_size_bytes() const { return 1u << log_base_2_of_page_size; }
};

// ---- TensorAccessor (interleaved DRAM tensors only) --------------------------------
// TensorAccessorArgs<CTA_OFFSET> reads one compile-time arg at CTA_OFFSET: tt-metal's
// ArgConfig bits (Sharded = 1, IsDram = 2); interleaved DRAM tensors pass 2.
namespace {
template <uint32_t CTA_OFFSET, uint32_t CRTA_OFFSET = 0>
struct TensorAccessorArgs {
  static constexpr uint32_t args_config = get_compile_time_arg_val(CTA_OFFSET);
  static_assert((args_config & 1u) == 0, "TensorAccessor: sharded tensors are not emulated");
  static_assert((args_config & 2u) != 0, "TensorAccessor: only DRAM tensors are emulated");
  static constexpr uint32_t next_compile_time_args_offset() { return CTA_OFFSET + 1; }
  static constexpr uint32_t next_common_runtime_args_offset() { return CRTA_OFFSET; }
};
}  // namespace

template <typename Args>
struct TensorAccessor {
  uint32_t bank_base_address;
  uint32_t page_size;
  TensorAccessor(const Args&, uint32_t bank_base_address_, uint32_t page_size_)
      : bank_base_address(bank_base_address_), page_size(page_size_) {}
  uint64_t get_noc_addr(uint32_t page_id, uint32_t offset = 0, uint8_t noc = noc_index) const {
    (void)noc;
    return ttemu::dram_page_noc_addr(bank_base_address, page_id, page_size, offset);
  }
};

// ---- the compiler's bounds check of a transfer (ttkernel.check_tile_block) ---------
// The generated source calls TTLANG_CHECK_TILE_BLOCK(tensor, source, rank, block...,
// shape..., index...) before a block's transfers; it defines the macro empty for
// hardware, where nothing would report a failure.
template <typename... Values>
inline void ttemu_check_tile_block(const char* tensor, const char* source, Values... values) {
  const int32_t list[] = {static_cast<int32_t>(values)...};
  ttemu::check_tile_block(tensor, source, list, sizeof...(Values));
}
#define TTLANG_CHECK_TILE_BLOCK(...) ttemu_check_tile_block(__VA_ARGS__)

namespace ttemu_detail {
template <typename AddrGen>
inline uint32_t page_size_of(const AddrGen& s) { return s.page_size; }
template <bool DRAM>
inline uint32_t page_size_of(const InterleavedPow2AddrGenFast<DRAM>& s) { return s.page_size_bytes(); }
}  // namespace ttemu_detail

// ---- NoC addresses -----------------------------------------------------------------
FORCE_INLINE uint64_t get_noc_addr(uint32_t noc_x, uint32_t noc_y, uint32_t addr, uint8_t noc = noc_index) {
  (void)noc;
  return ttemu::core_noc_addr(noc_x, noc_y, addr);
}
FORCE_INLINE uint64_t get_noc_addr(uint32_t addr, uint8_t noc = noc_index) {
  (void)noc;
  return ttemu::local_noc_addr(addr);
}
template <typename AddrGen, std::enable_if_t<std::is_class<AddrGen>::value, int> = 0>
FORCE_INLINE uint64_t get_noc_addr(uint32_t id, const AddrGen& s, uint32_t offset = 0, uint8_t noc = noc_index) {
  return s.get_noc_addr(id, offset, noc);
}
FORCE_INLINE uint64_t get_noc_multicast_addr(uint32_t noc_x_start, uint32_t noc_y_start, uint32_t noc_x_end,
                                             uint32_t noc_y_end, uint32_t addr, uint8_t noc = noc_index) {
  (void)noc;
  return ttemu::multicast_noc_addr(noc_x_start, noc_y_start, noc_x_end, noc_y_end, addr);
}

// ---- reads and writes ----------------------------------------------------------------
FORCE_INLINE void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size,
                                 uint8_t noc = noc_index) {
  ttemu::noc_read(src_noc_addr, dst_local_l1_addr, size, noc);
}
FORCE_INLINE void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size,
                                  uint8_t noc = noc_index) {
  ttemu::noc_write(src_local_l1_addr, dst_noc_addr, size, noc);
}
template <typename AddrGen>
FORCE_INLINE void noc_async_read_tile(uint32_t id, const AddrGen& s, uint32_t dst_local_l1_addr,
                                      uint32_t offset = 0, uint8_t noc = noc_index) {
  ttemu::noc_read(s.get_noc_addr(id, offset, noc), dst_local_l1_addr, ttemu_detail::page_size_of(s), noc);
}
template <typename AddrGen>
FORCE_INLINE void noc_async_write_tile(uint32_t id, const AddrGen& s, uint32_t src_local_l1_addr,
                                       uint8_t noc = noc_index) {
  ttemu::noc_write(src_local_l1_addr, s.get_noc_addr(id, 0, noc), ttemu_detail::page_size_of(s), noc);
}
template <typename AddrGen>
FORCE_INLINE void noc_async_read_page(uint32_t id, const AddrGen& s, uint32_t dst_local_l1_addr,
                                      uint32_t offset = 0, uint8_t noc = noc_index) {
  ttemu::noc_read(s.get_noc_addr(id, offset, noc), dst_local_l1_addr, ttemu_detail::page_size_of(s), noc);
}
// write_size_bytes = 0 writes the whole page.
template <typename AddrGen>
FORCE_INLINE void noc_async_write_page(uint32_t id, const AddrGen& s, uint32_t src_local_l1_addr,
                                       uint32_t write_size_bytes = 0, uint32_t offset = 0,
                                       uint8_t noc = noc_index) {
  uint32_t size = write_size_bytes ? write_size_bytes : ttemu_detail::page_size_of(s);
  ttemu::noc_write(src_local_l1_addr, s.get_noc_addr(id, offset, noc), size, noc);
}

FORCE_INLINE void noc_async_write_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                            uint32_t size, uint32_t num_dests, bool linked = false,
                                            bool multicast_path_reserve = true, uint8_t noc = noc_index) {
  (void)multicast_path_reserve;
  ttemu::noc_write_multicast(src_local_l1_addr, dst_noc_addr_multicast, size, num_dests, false, linked, noc);
}
FORCE_INLINE void noc_async_write_multicast_loopback_src(uint32_t src_local_l1_addr,
                                                         uint64_t dst_noc_addr_multicast, uint32_t size,
                                                         uint32_t num_dests, bool linked = false,
                                                         bool multicast_path_reserve = true,
                                                         uint8_t noc = noc_index) {
  (void)multicast_path_reserve;
  ttemu::noc_write_multicast(src_local_l1_addr, dst_noc_addr_multicast, size, num_dests, true, linked, noc);
}

// ---- transaction ids: the reads issued after noc_async_read_set_trid(t) carry t, and
// noc_async_read_barrier_with_trid(t) waits for those only (tt-metal's ids are 0x0-0xF).
FORCE_INLINE void noc_async_read_set_trid(uint32_t trid = 0, uint8_t noc = noc_index) {
  (void)noc;
  ttemu::noc_read_set_trid(trid);
}
FORCE_INLINE void noc_async_read_barrier_with_trid(uint32_t trid, uint8_t noc = noc_index) {
  (void)noc;
  ttemu::noc_read_barrier_with_trid(trid);
}

// ---- barriers --------------------------------------------------------------------------
// A barrier waits for the thread's transfers on both NoCs (tt-metal's, for those on the
// NoC it names): the same for a kernel that keeps to its own NoC, never too early.
FORCE_INLINE void noc_async_read_barrier(uint8_t noc = noc_index) { (void)noc; ttemu::noc_read_barrier(); }
FORCE_INLINE void noc_async_write_barrier(uint8_t noc = noc_index) { (void)noc; ttemu::noc_write_barrier(); }
FORCE_INLINE void noc_async_writes_flushed(uint8_t noc = noc_index) { (void)noc; ttemu::noc_write_barrier(); }
FORCE_INLINE void noc_async_atomic_barrier(uint8_t noc = noc_index) { (void)noc; ttemu::noc_write_barrier(); }
FORCE_INLINE void noc_async_full_barrier(uint8_t noc = noc_index) {
  (void)noc;
  ttemu::noc_read_barrier();
  ttemu::noc_write_barrier();
}

// ---- semaphores (allocated at the same L1 address on every core) -----------------------
FORCE_INLINE uint32_t get_semaphore(uint32_t semaphore_id) { return ttemu::semaphore_addr(semaphore_id); }
FORCE_INLINE void noc_semaphore_wait(volatile tt_l1_ptr uint32_t* sem_addr, uint32_t val) {
  ttemu::semaphore_wait(sem_addr, val, false);
}
FORCE_INLINE void noc_semaphore_wait_min(volatile tt_l1_ptr uint32_t* sem_addr, uint32_t val) {
  ttemu::semaphore_wait(sem_addr, val, true);
}
FORCE_INLINE void noc_semaphore_set(volatile tt_l1_ptr uint32_t* sem_addr, uint32_t val) {
  ttemu::semaphore_set(sem_addr, val);
}
FORCE_INLINE void noc_semaphore_inc(uint64_t addr, uint32_t incr, uint8_t noc_id = noc_index) {
  ttemu::semaphore_inc(addr, incr, noc_id);
}
FORCE_INLINE void noc_semaphore_set_remote(uint32_t src_local_l1_addr, uint64_t dst_noc_addr,
                                           uint8_t noc = noc_index) {
  ttemu::semaphore_set_remote(src_local_l1_addr, dst_noc_addr, noc);
}
FORCE_INLINE void noc_semaphore_set_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                              uint32_t num_dests, bool linked = false,
                                              bool multicast_path_reserve = true, uint8_t noc = noc_index) {
  (void)linked, (void)multicast_path_reserve;
  ttemu::semaphore_set_multicast(src_local_l1_addr, dst_noc_addr_multicast, num_dests, false, noc);
}
FORCE_INLINE void noc_semaphore_set_multicast_loopback_src(uint32_t src_local_l1_addr,
                                                           uint64_t dst_noc_addr_multicast, uint32_t num_dests,
                                                           bool linked = false, bool multicast_path_reserve = true,
                                                           uint8_t noc = noc_index) {
  (void)linked, (void)multicast_path_reserve;
  ttemu::semaphore_set_multicast(src_local_l1_addr, dst_noc_addr_multicast, num_dests, true, noc);
}
