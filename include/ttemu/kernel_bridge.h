// The calls the tt-metal-style kernel API headers make into the emulator runtime.
//
// The kernel API headers (api/compute/*.h, api/dataflow/dataflow_api.h) are thin inline
// wrappers with tt-metal's names and signatures; every call lands here, in the runtime
// library (lib/), which checks it, performs it on the calling core and charges its cost
// to the calling thread's virtual clock.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ttemu {

// tt-metal's DataFormat codes (tt_metal/hw/inc/.../tensix_types.h values).
enum class DataFormat : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Bfp8 = 2,
  Bfp4 = 3,
  Tf32 = 4,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Int32 = 8,
  UInt16 = 9,
  Int8 = 14,
  UInt32 = 24,
  UInt8 = 30,
  Invalid = 0xff,
};

enum class BinaryOp : uint8_t { Add, Sub, Mul };
enum class Broadcast : uint8_t { None, Rows, Cols, Scalar };
enum class ReducePool : uint8_t { Sum, Avg, Max };
enum class ReduceAxis : uint8_t { Row, Col, Scalar };
// Which DST-resident operand a dest-reuse binary takes from DST (tt-metal's
// EltwiseBinaryReuseDestType): DestToSrcA computes dst op cb, DestToSrcB cb op dst.
enum class DestReuse : uint8_t { None, DestToSrcA, DestToSrcB };
enum class SfpuUnary : uint8_t {
  Exp, Recip, Sqrt, Rsqrt, Neg, Abs, Relu, AddScalar, SubScalar, RsubScalar, MulScalar, DivScalar,
};
enum class SfpuBinary : uint8_t { Add, Sub, Mul, Div, Max, Min };
// Cost-only operations: configuration calls that reprogram the unpacker/math/packer.
enum class InitKind : uint8_t { HwStartup, Copy, Matmul, Reduce, Binary, Bcast, Transpose, Sfpu };

[[noreturn]] void kernel_error(const char* message);

// ---- arguments ----------------------------------------------------------------
uint32_t runtime_arg(uint32_t index);
uint32_t common_runtime_arg(uint32_t index);

// ---- circular buffers (both kinds of kernel) ------------------------------------
void cb_wait_front(uint32_t cb, uint32_t num_pages);
void cb_pop_front(uint32_t cb, uint32_t num_pages);
void cb_reserve_back(uint32_t cb, uint32_t num_pages);
void cb_push_back(uint32_t cb, uint32_t num_pages);
bool cb_pages_available_at_front(uint32_t cb, uint32_t num_pages);
bool cb_pages_reservable_at_back(uint32_t cb, uint32_t num_pages);
uint32_t cb_read_ptr(uint32_t cb);
uint32_t cb_write_ptr(uint32_t cb);
uint32_t cb_page_size(uint32_t cb);
DataFormat cb_data_format(uint32_t cb);

// ---- compute: DST protocol and math ----------------------------------------------
void tile_regs_acquire();
void tile_regs_commit();
void tile_regs_wait();
void tile_regs_release();
void init(InitKind kind);
// pack_reconfig_l1_acc: with `enable`, pack_tile adds the DST tile to the page it packs
// into (tt-metal's packer L1 accumulation) instead of overwriting it; kept per core.
void pack_l1_acc(bool enable);
// reduce_init / reduce_uninit: besides their init cost, reduce_init sets the packer's edge
// masks for its dim (tt-metal 0.81.1 `_llk_pack_reduce_mask_config_`): until reduce_uninit
// clears them, pack_tile writes every datum but the reduction's result (column 0 of each
// row, row 0 of each column, or [0][0]) as zero; kept per core.
void reduce_init(ReduceAxis axis);
void reduce_uninit();
// A data-format reconfiguration `call` of the unpackers (`first` = srcA, `second` =
// srcB) or of the packer (`first`): each slot given a new CB (>= 0) takes that CB's
// format. With its old CB given (tt-metal's (old, new) overloads) a slot changes only
// when the two CBs' formats differ. Charged cost.reconfig when a slot changes (an
// unconditional call always changes its slots).
constexpr int32_t kNoCB = -1;
void reconfig_data_format(const char* call, int32_t first_old, int32_t first_new, int32_t second_old,
                          int32_t second_new);
// matmul_init's B-transpose flag, kept per core until its next matmul_init.
void set_matmul_transpose(bool transpose_b);
bool matmul_transpose();
void copy_tile(uint32_t cb, uint32_t tile, uint32_t dst);
void pack_tile(uint32_t dst, uint32_t cb, uint32_t out_tile, bool out_of_order);
void matmul_tiles(uint32_t cb0, uint32_t cb1, uint32_t tile0, uint32_t tile1, uint32_t dst,
                  bool transpose_b);
void reduce_tile(ReducePool pool, ReduceAxis axis, uint32_t cb, uint32_t cb_scaler, uint32_t tile,
                 uint32_t tile_scaler, uint32_t dst);
void binary_tiles(BinaryOp op, Broadcast bcast, uint32_t cb0, uint32_t cb1, uint32_t tile0,
                  uint32_t tile1, uint32_t dst, bool accumulate);
void binary_dest_reuse_tiles(BinaryOp op, DestReuse reuse, uint32_t cb, uint32_t tile, uint32_t dst);
void unary_bcast(Broadcast bcast, uint32_t cb, uint32_t tile, uint32_t dst);
void transpose_wh_tile(uint32_t cb, uint32_t tile, uint32_t dst);
void sfpu_unary(SfpuUnary op, uint32_t dst, float param, bool approx);
void sfpu_binary(SfpuBinary op, uint32_t dst0, uint32_t dst1, uint32_t out);
// DST[out] = DST[cond] != 0 ? DST[if_true] : DST[if_false]; `format` is where_tile's
// template argument, the DST format it reads (Float16_b: 16-bit DST, Float32: 32-bit).
void sfpu_where(uint32_t cond, uint32_t if_true, uint32_t if_false, uint32_t out, DataFormat format);
void fill_tile(uint32_t dst, float value);
// DST[dst_to] = DST[dst_from] (the API's copy_dest_values takes the source first).
void copy_dest_values(uint32_t dst_to, uint32_t dst_from);

// ---- data movement ----------------------------------------------------------------
uint8_t my_noc_x();
uint8_t my_noc_y();
uint64_t core_noc_addr(uint32_t x, uint32_t y, uint32_t l1_addr);
uint64_t local_noc_addr(uint32_t l1_addr);
uint64_t multicast_noc_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
                            uint32_t l1_addr);
uint64_t dram_page_noc_addr(uint32_t bank_base_address, uint32_t page_id, uint32_t page_size,
                            uint32_t offset);
// The NoC the calling thread's kernel uses (its RISC's: the device description's
// reader_noc or writer_noc): what tt-metal's `noc_index` holds, every call's default.
uint8_t thread_noc();
// `noc`: the NoC the transfer or message travels on (0 or 1).
void noc_read(uint64_t src_noc_addr, uint32_t dst_l1_addr, uint32_t size, uint8_t noc);
void noc_write(uint32_t src_l1_addr, uint64_t dst_noc_addr, uint32_t size, uint8_t noc);
void noc_write_multicast(uint32_t src_l1_addr, uint64_t dst_mcast_addr, uint32_t size,
                         uint32_t num_dests, bool include_self, bool linked, uint8_t noc);
void noc_read_barrier();
void noc_read_set_trid(uint32_t trid);
void noc_read_barrier_with_trid(uint32_t trid);
void noc_write_barrier();
uint32_t semaphore_addr(uint32_t id);
void semaphore_wait(volatile uint32_t* addr, uint32_t value, bool at_least);
void semaphore_set(volatile uint32_t* addr, uint32_t value);
void semaphore_inc(uint64_t noc_addr, uint32_t increment, uint8_t noc);
void semaphore_set_remote(uint32_t src_l1_addr, uint64_t dst_noc_addr, uint8_t noc);
void semaphore_set_multicast(uint32_t src_l1_addr, uint64_t dst_mcast_addr, uint32_t num_dests,
                             bool include_self, uint8_t noc);
// A helper function the generated source defines (a call tt-metal lacks) charges its
// modeled time through TTLANG_MODELED_COST(name): its stores to L1 cost nothing else.
void charge_helper(const char* helper);
// The compiler's check of a transfer's block against its tensor (TTLANG_CHECK_TILE_BLOCK,
// dataflow_api.h): `values` are the rank r, the block's r extents in tiles, the tensor's
// r extents, then the block's r first-tile indices. Fails naming `tensor`, the DSL line
// `source` and the index when the block leaves the tensor in some dimension. Costs nothing:
// hardware runs no such check.
void check_tile_block(const char* tensor, const char* source, const int32_t* values, uint32_t count);

}  // namespace ttemu
