// Stand-in for the SFPI compiler's sfpi.h (RISC-V toolchain, not in the ttnn wheel).
#pragma once
#include <cstdint>
namespace sfpi {
struct Any {
  constexpr Any() {}
  template <class T> constexpr Any(const T&) {}
  template <class T> constexpr operator T() const { return T(); }
  template <class... A> constexpr Any operator()(A&&...) const { return {}; }
  template <class T> constexpr Any operator[](const T&) const { return {}; }
  template <class T> constexpr Any& operator=(const T&) { return *this; }
  constexpr Any operator-() const { return {}; }
  constexpr Any operator~() const { return {}; }
  constexpr Any operator!() const { return {}; }
  constexpr Any& operator++() { return *this; }
  constexpr Any& operator--() { return *this; }
  constexpr Any operator++(int) { return {}; }
  constexpr Any operator--(int) { return {}; }
  template <auto... Mode> constexpr Any mode() const { return {}; }
#define SFPI_STANDIN_COMPOUND(op) template <class T> constexpr Any& operator op(const T&) { return *this; }
  SFPI_STANDIN_COMPOUND(+=) SFPI_STANDIN_COMPOUND(-=) SFPI_STANDIN_COMPOUND(*=) SFPI_STANDIN_COMPOUND(/=)
  SFPI_STANDIN_COMPOUND(&=) SFPI_STANDIN_COMPOUND(|=) SFPI_STANDIN_COMPOUND(^=) SFPI_STANDIN_COMPOUND(<<=)
  SFPI_STANDIN_COMPOUND(>>=)
};
#define SFPI_STANDIN_BINARY(op)                                                            \
  template <class T> constexpr Any operator op(const Any&, const T&) { return {}; }       \
  template <class T, class = decltype(Any(T()))> constexpr Any operator op(const T&, const Any&) { return {}; } \
  constexpr Any operator op(const Any&, const Any&) { return {}; }
SFPI_STANDIN_BINARY(+) SFPI_STANDIN_BINARY(-) SFPI_STANDIN_BINARY(*) SFPI_STANDIN_BINARY(/)
SFPI_STANDIN_BINARY(&) SFPI_STANDIN_BINARY(|) SFPI_STANDIN_BINARY(^) SFPI_STANDIN_BINARY(<<)
SFPI_STANDIN_BINARY(>>) SFPI_STANDIN_BINARY(<) SFPI_STANDIN_BINARY(>) SFPI_STANDIN_BINARY(<=)
SFPI_STANDIN_BINARY(>=) SFPI_STANDIN_BINARY(==) SFPI_STANDIN_BINARY(!=) SFPI_STANDIN_BINARY(&&)
SFPI_STANDIN_BINARY(||)
using vFloat = Any; using vInt = Any; using vUInt = Any; using vBool = Any; using vMag = Any;
using vSMag = Any; using vSMag8 = Any; using vSMag16 = Any; using vUInt8 = Any; using vUInt16 = Any;
using vFloat16a = Any; using vFloat16b = Any; using sFloat16a = Any; using sFloat16b = Any;
using vLut16ss = Any; using vLut16ii = Any; using vLut8si = Any; using vCond = Any;
template <class T, class... A> constexpr T as(A&&...) { return T(); }
template <class T, class... A> constexpr T convert(A&&...) { return T(); }
template <class T, class... A> constexpr T reinterpret(A&&...) { return T(); }
inline Any dst_reg, l_reg;
inline constexpr Any vConst0, vConst1, vConstNeg1, vConst0p8373, vConstTileId,
    vConstFloatPrgm0, vConstFloatPrgm1, vConstFloatPrgm2, vConstIntPrgm0, vConstIntPrgm1, vConstIntPrgm2;
inline constexpr Any abs, copysgn, exexp_nodebias, setexp, setsgn, setsgn2, setman, exman8,
    exman9, addexp, shft, lz, min, max, clamp, symmetric_clamp, nearby, min_max, lut, lut2, lut2_sign,
    is_inf, is_nan, is_finite, is_pos, is_neg, copyman, lreg_pressure, float_to_fp16a, float_to_fp16b,
    float_to_int16, float_to_uint16, float_to_int8, float_to_uint8, int32_to_float, s2vFloat16a, s2vFloat16b,
    vec_min_max, subvec_transp, subvec_shflror1, subvec_shflshr1;
// Functions, not objects: headers call these unqualified on vector values, found by
// argument-dependent lookup (ckernel_sfpu_conversions.h, reached from recip.h).
template <class... A> constexpr Any exexp(A&&...) { return {}; }
template <class... A> constexpr Any exman(A&&...) { return {}; }
enum class RoundMode { Nearest, NearestStochastic };
enum class DataLayout { Default, F32, FSrcB, I32, SM32, U16, U32 };
enum class ExponentMode { Biased };
enum class MantissaMode { ImplicitOne };
enum class ShiftMode { Logical };
enum class LutSign { Retain, Update };
enum class LRegs { LReg0, LReg1, LReg2, LReg3, LReg4, LReg5, LReg6 };
enum : unsigned {
  SFPLOADI_MOD0_UPPER, SFPLOADI_MOD0_LOWER, SFPLOADI_MOD0_FLOATB, SFPLOADI_MOD0_FLOATA, SFPLOADI_MOD0_USHORT,
  SFPLOADI_MOD0_SHORT, SFPMAD_MOD1_OFFSET_NONE, SFPIADD_MOD1_CC_NONE, SFPIADD_MOD1_ARG_IMM,
  SFPIADD_MOD1_ARG_2SCOMP_LREG_DST, SFPIADD_MOD1_CC_LT0, SFPIADD_MOD1_CC_GTE0, SFPSETCC_MOD1_LREG_LT0,
  SFPSETCC_MOD1_LREG_GTE0, SFPSETCC_MOD1_LREG_EQ0, SFPSETCC_MOD1_LREG_NE0, SFPSWAP_MOD1_VEC_MIN_MAX,
  SFPSWAP_MOD1_SWAP, SFPSHFT2_MOD1_SHFT_LREG, SFPSHFT2_MOD1_SUBVEC_SHFLROR1, SFPSHFT2_MOD1_SHFT_IMM,
  SFPSTOCHRND_MOD1_FP32_TO_FP16B, SFPSTOCHRND_RND_EVEN, SFPSTOCHRND_MOD1_FP32_TO_UINT16,
  SFPSTOCHRND_MOD1_FP32_TO_UINT8, SFPSTOCHRND_MOD1_FP32_TO_INT8, SFPSTOCHRND_MOD1_FP32_TO_INT16,
  SFPEXMAN_MOD1_PAD9, SFPSTORE_MOD0_FMT_SRCB, SFPLOAD_MOD0_FMT_SRCB, SFPEXEXP_MOD1_SET_CC_SGN_EXP,
  SFPEXEXP_MOD1_SET_CC_COMP_EXP, SFPCAST_MOD1_INT32_TO_FP32_RNE, SFPCAST_MOD1_SM32_TO_FP32_RNE,
  SFP_DESTREG_STRIDE, SFPENCC_MOD1_EU_R1, SFPENCC_MOD1_EI_RI, SFPENCC_IMM12_BOTH, SFPABS_MOD1_INT,
};
}  // namespace sfpi
#define sfpi_inline inline
#define v_if(c) if (true) {
#define v_elseif(c) } else if (true) {
#define v_else } else {
#define v_endif }
#define v_block {
#define v_endblock }
#define v_and(c)
