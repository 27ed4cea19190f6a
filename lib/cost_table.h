// The emulator's cost model: cycles charged for each kernel API call. The numbers live
// in the device description (python/ttlang/device/<device>.toml, [cost]), each with its
// source; this header holds the rules that combine them (docs/cost_model.md).
//
// Hardware runs a compute kernel on three RISC-Vs (unpack, math, pack). Here the
// fiber's clock is unpack + math (a math call is charged its math cost only: unpack is
// taken to hide behind it), and the packer has its own clock (KernelThread::pack_clock)
// for tile_regs_wait/release, pack_tile, cb_reserve_back and cb_push_back.
#pragma once

#include <cstdint>

#include "device_description.h"
#include "ttemu/kernel_bridge.h"

namespace ttemu {

enum class MathFidelity { LoFi, HiFi2, HiFi3, HiFi4 };

// Fidelity phases: LoFi 1 .. HiFi4 4 (tensix.md, "Matrix engine").
int fidelity_phases(MathFidelity fidelity);
const char* fidelity_name(MathFidelity fidelity);

// Cycles of the matrix engine for one 32x32x32 tile at `fidelity` (16 per phase): the
// peak rate.
uint64_t matmul_tile_cycles(const CostTable& cost, MathFidelity fidelity);
// Cycles of one matmul_tiles on operands of formats `in0` and `in1`: the engine's cycles,
// but never fewer than the larger floor of the two operands' formats (what unpacking
// them costs; fitted on tt-metal's GEMM measurements).
uint64_t matmul_tile_cycles(const CostTable& cost, MathFidelity fidelity, DataFormat in0, DataFormat in1);
// Cycles of one reduce_tile at `fidelity`.
uint64_t reduce_tile_cycles(const CostTable& cost, MathFidelity fidelity);
// The hardware's peak FLOP per cycle per core at `fidelity`: one 32x32x32 tile per
// engine cycles (the ideal, without format floors).
double peak_flops_per_cycle(const CostTable& cost, MathFidelity fidelity);

}  // namespace ttemu
