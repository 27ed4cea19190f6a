// Data-format reconfiguration (tt-metal 0.81.1 api/compute/reconfig_data_format.h): the
// unpackers' srcA / srcB formats and the packer's output format follow the CBs named.
// The (old, new) overloads change only what the two CBs' formats make different.
#pragma once

#include <cstdint>

#include "api/compute/common.h"

namespace ckernel {
// How the two input CBs map onto srcA / srcB (matmul loads in0 into srcB: Reverse).
enum class SrcOrder : uint8_t { Regular = 0, Reverse = 1 };
}  // namespace ckernel

template <SrcOrder src_order = SrcOrder::Regular>
ALWI void reconfig_data_format(uint32_t icb0_new, uint32_t icb1_new) {
  constexpr bool reverse = src_order == SrcOrder::Reverse;
  ttemu::reconfig_data_format("reconfig_data_format", ttemu::kNoCB, reverse ? icb1_new : icb0_new, ttemu::kNoCB,
                              reverse ? icb0_new : icb1_new);
}
template <SrcOrder src_order = SrcOrder::Regular>
ALWI void reconfig_data_format(uint32_t icb0_old, uint32_t icb0_new, uint32_t icb1_old, uint32_t icb1_new) {
  constexpr bool reverse = src_order == SrcOrder::Reverse;
  ttemu::reconfig_data_format("reconfig_data_format", reverse ? icb1_old : icb0_old, reverse ? icb1_new : icb0_new,
                              reverse ? icb0_old : icb1_old, reverse ? icb0_new : icb1_new);
}
ALWI void reconfig_data_format_srca(uint32_t srca_new) {
  ttemu::reconfig_data_format("reconfig_data_format_srca", ttemu::kNoCB, srca_new, ttemu::kNoCB, ttemu::kNoCB);
}
ALWI void reconfig_data_format_srca(uint32_t srca_old, uint32_t srca_new) {
  ttemu::reconfig_data_format("reconfig_data_format_srca", srca_old, srca_new, ttemu::kNoCB, ttemu::kNoCB);
}
ALWI void reconfig_data_format_srcb(uint32_t srcb_new) {
  ttemu::reconfig_data_format("reconfig_data_format_srcb", ttemu::kNoCB, ttemu::kNoCB, ttemu::kNoCB, srcb_new);
}
ALWI void reconfig_data_format_srcb(uint32_t srcb_old, uint32_t srcb_new) {
  ttemu::reconfig_data_format("reconfig_data_format_srcb", ttemu::kNoCB, ttemu::kNoCB, srcb_old, srcb_new);
}
template <bool is_tile_dim_reconfig_en = false>
ALWI void pack_reconfig_data_format(uint32_t new_ocb) {
  ttemu::reconfig_data_format("pack_reconfig_data_format", ttemu::kNoCB, new_ocb, ttemu::kNoCB, ttemu::kNoCB);
}
template <bool is_tile_dim_reconfig_en = false>
ALWI void pack_reconfig_data_format(uint32_t old_ocb, uint32_t new_ocb) {
  ttemu::reconfig_data_format("pack_reconfig_data_format", old_ocb, new_ocb, ttemu::kNoCB, ttemu::kNoCB);
}
