// DST[idst] = DST[idst] op scalar, the scalar given as the bits of an fp32 value.
#pragma once

#include "api/compute/eltwise_unary/eltwise_unary.h"

ALWI void binop_with_scalar_tile_init() { ttemu::init(ttemu::InitKind::Sfpu); }
ALWI void add_unary_tile(uint32_t idst, uint32_t param1) {
  ttemu::sfpu_unary(ttemu::SfpuUnary::AddScalar, idst, ttemu_detail::bits_float(param1), false);
}
ALWI void sub_unary_tile(uint32_t idst, uint32_t param1) {
  ttemu::sfpu_unary(ttemu::SfpuUnary::SubScalar, idst, ttemu_detail::bits_float(param1), false);
}
ALWI void rsub_unary_tile(uint32_t idst, uint32_t param1) {
  ttemu::sfpu_unary(ttemu::SfpuUnary::RsubScalar, idst, ttemu_detail::bits_float(param1), false);
}
ALWI void mul_unary_tile(uint32_t idst, uint32_t param1) {
  ttemu::sfpu_unary(ttemu::SfpuUnary::MulScalar, idst, ttemu_detail::bits_float(param1), false);
}
ALWI void div_unary_tile(uint32_t idst, uint32_t param1) {
  ttemu::sfpu_unary(ttemu::SfpuUnary::DivScalar, idst, ttemu_detail::bits_float(param1), false);
}
