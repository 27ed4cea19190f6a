// FPU binary ops: DST[idst] = A(in0 tile) op B(in1 tile), and the dest-reuse forms.
#pragma once

#include "api/compute/common.h"

namespace ckernel {
enum EltwiseBinaryType { ELWMUL, ELWDIV, ELWADD, ELWSUB, ELWLESS };
enum class EltwiseBinaryReuseDestType { NONE = 0, DEST_TO_SRCA = 1, DEST_TO_SRCB = 2 };
enum class BroadcastType : uint8_t { NONE = 0x0, COL = 0x1, ROW = 0x2, SCALAR = 0x3 };
}  // namespace ckernel

namespace ttemu_detail {
constexpr ttemu::BinaryOp binary_op_of(EltwiseBinaryType op) {
  return op == ELWADD ? ttemu::BinaryOp::Add
                      : op == ELWSUB ? ttemu::BinaryOp::Sub
                                     : op == ELWMUL ? ttemu::BinaryOp::Mul
                                                    : (ttemu::kernel_error("unsupported EltwiseBinaryType"),
                                                       ttemu::BinaryOp::Add);
}
constexpr ttemu::Broadcast broadcast_of(BroadcastType dim) {
  return dim == BroadcastType::ROW ? ttemu::Broadcast::Rows
                                   : dim == BroadcastType::COL ? ttemu::Broadcast::Cols
                                                               : dim == BroadcastType::SCALAR
                                                                     ? ttemu::Broadcast::Scalar
                                                                     : ttemu::Broadcast::None;
}
}  // namespace ttemu_detail

// acc_to_dest: the result is added to what DST[idst] holds instead of replacing it.
#define TTEMU_BINARY_TILES(name, op)                                                              \
  ALWI void name##_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false) {                 \
    (void)icb0, (void)icb1;                                                                       \
    ttemu_binary_acc_to_dest() = acc_to_dest;                                                     \
    ttemu::init(ttemu::InitKind::Binary);                                                         \
  }                                                                                               \
  ALWI void name##_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1,          \
                         uint32_t idst) {                                                         \
    ttemu::binary_tiles(op, ttemu::Broadcast::None, icb0, icb1, itile0, itile1, idst,             \
                        ttemu_binary_acc_to_dest());                                              \
  }

// The accumulate flag set by the last *_tiles_init; per kernel (translation unit), as the
// hardware's math configuration is per compute kernel.
namespace {
inline bool& ttemu_binary_acc_to_dest() {
  static bool acc_to_dest = false;
  return acc_to_dest;
}
}  // namespace

TTEMU_BINARY_TILES(add, ttemu::BinaryOp::Add)
TTEMU_BINARY_TILES(sub, ttemu::BinaryOp::Sub)
TTEMU_BINARY_TILES(mul, ttemu::BinaryOp::Mul)
#undef TTEMU_BINARY_TILES

// The dest-reuse forms: DST slot `dst_tile_index` is one operand (moved to SrcA or SrcB,
// as `reuse_dest` says), tile `in_tile_index` of `in_cb_id` the other; the result
// replaces the DST tile.
namespace ttemu_detail {
template <EltwiseBinaryReuseDestType reuse_dest>
constexpr ttemu::DestReuse dest_reuse_of() {
  static_assert(reuse_dest != EltwiseBinaryReuseDestType::NONE,
                "reuse_dest must be DEST_TO_SRCA or DEST_TO_SRCB");
  return reuse_dest == EltwiseBinaryReuseDestType::DEST_TO_SRCA ? ttemu::DestReuse::DestToSrcA
                                                                 : ttemu::DestReuse::DestToSrcB;
}
}  // namespace ttemu_detail

#define TTEMU_REUSE_DEST_FORMS(name, op)                                                          \
  template <EltwiseBinaryReuseDestType reuse_dest>                                                \
  ALWI void name##_reuse_dest_init(uint32_t icb) {                                                \
    (void)ttemu_detail::dest_reuse_of<reuse_dest>();                                              \
    (void)icb;                                                                                    \
    ttemu::init(ttemu::InitKind::Binary);                                                         \
  }                                                                                               \
  template <EltwiseBinaryReuseDestType reuse_dest>                                                \
  ALWI void name##_reuse_dest_tiles(uint32_t in_cb_id, uint32_t in_tile_index, uint32_t dst_tile_index) { \
    ttemu::binary_dest_reuse_tiles(op, ttemu_detail::dest_reuse_of<reuse_dest>(), in_cb_id,       \
                                   in_tile_index, dst_tile_index);                                \
  }
TTEMU_REUSE_DEST_FORMS(add, ttemu::BinaryOp::Add)
TTEMU_REUSE_DEST_FORMS(sub, ttemu::BinaryOp::Sub)
TTEMU_REUSE_DEST_FORMS(mul, ttemu::BinaryOp::Mul)
#undef TTEMU_REUSE_DEST_FORMS
