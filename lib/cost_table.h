// The emulator's cost table: cycles charged for each kernel API call, and the NoC/DRAM
// parameters. Every entry cites shared/reference/tensix.md (and through it the public
// Tenstorrent source) or says "estimate" where nothing is published.
//
// Hardware runs a compute kernel on three RISC-Vs (unpack, math, pack). Here the
// fiber's clock is unpack + math (a math call is charged its math cost only: unpack is
// taken to hide behind it), and the packer has its own clock (KernelThread::pack_clock)
// for tile_regs_wait/release, pack_tile, cb_reserve_back and cb_push_back.
#pragma once

#include <cstdint>

namespace ttemu {

enum class MathFidelity { LoFi, HiFi2, HiFi3, HiFi4 };

// Fidelity phases: LoFi 1 .. HiFi4 4 (tensix.md, "Matrix engine").
int fidelity_phases(MathFidelity fidelity);
const char* fidelity_name(MathFidelity fidelity);

namespace cost {

constexpr double kClockHz = 1e9;  // Wormhole clock, 1 GHz (tensix.md "Chip")

// ---- matrix engine (FPU) ----
// One 32x32x32 tile matmul: 16 cycles per fidelity phase (LoFi 16 .. HiFi4 64),
// tensix.md "Matrix engine": 8x16 x 16x16 per cycle = 4096 FLOP/cycle at LoFi.
constexpr uint64_t kMatmulTilePerPhase = 16;
constexpr uint64_t kFlopsPerCycleLoFi = 4096;  // tensix.md: per-core peak 4.096 TFLOP/s at LoFi
// Eltwise add/sub: 8x16 per cycle -> 8 cycles per tile (tensix.md "Matrix engine").
constexpr uint64_t kEltwiseAddTile = 8;
// Eltwise mul: ~8 cycles per fidelity phase (tensix.md "Matrix engine").
constexpr uint64_t kEltwiseMulTilePerPhase = 8;
// Reduce: ~16x16 per cycle -> 4 cycles per tile (tensix.md), plus scaler multiply: estimate 8.
constexpr uint64_t kReduceTile = 12;
// transpose_wh_tile through the unpacker + a datacopy: estimate.
constexpr uint64_t kTransposeTile = 32;
// copy_tile (unpack to DST, datacopy 8x16 per cycle): estimate.
constexpr uint64_t kCopyTile = 16;
// unary_bcast / broadcast operand handling: same as a datacopy, estimate.
constexpr uint64_t kUnaryBcastTile = 16;

// ---- SFPU (32 lanes, one instruction per cycle: >= 32 cycles per tile instruction) ----
// Approximate exp: measured ~71 cycles/tile with the fast path (tensix.md, tt-llk PR #1190).
constexpr uint64_t kExpApproxTile = 71;
// Exact exp: ~107 cycles/tile measured for the older path (tensix.md); estimate for the
// accurate polynomial: 1.5x that.
constexpr uint64_t kExpTile = 160;
// recip / sqrt / rsqrt (Newton iterations): estimate.
constexpr uint64_t kRecipTile = 96;
constexpr uint64_t kSqrtTile = 96;
// One-instruction SFPU ops (neg, abs, relu, fill, scalar add/mul, binary add/sub/mul,
// max/min): load + op + store over 32 lanes: estimate 3 x 32.
constexpr uint64_t kSfpuSimpleTile = 96;
// SFPU divide (recip + mul): estimate.
constexpr uint64_t kSfpuDivTile = 128;
// where_tile (a select of two DST tiles by a third): estimate. tt-llk's _calculate_where_
// schedules it at 3 cycles per row of 32 values (96 per tile) when the output is the
// condition tile; taken as 4 per row (load condition, load true/false, store) here.
constexpr uint64_t kSfpuWhereTile = 128;
// copy_dest_values (one DST tile to another): estimate. tt-llk's copy_dest_value is a
// load and a store per row of 32 values, no arithmetic: taken as 2 per row (64 per tile),
// less than the load + op + store of kSfpuSimpleTile.
constexpr uint64_t kSfpuCopyDestTile = 64;

// ---- packer: 16 B/cycle per interface, 4 interfaces (tensix.md "Packer") ----
constexpr uint64_t kPackBytesPerCycle = 64;

// ---- control: not published, estimates ----
constexpr uint64_t kInit = 20;           // an *_init reprogramming unpack/math/pack
constexpr uint64_t kTileRegsSync = 4;    // tile_regs_acquire/commit/wait/release
constexpr uint64_t kCbCall = 6;          // cb_wait_front/pop_front/reserve_back/push_back
constexpr uint64_t kNocIssue = 12;       // building and issuing one NoC command
constexpr uint64_t kSemaphoreCall = 6;   // local semaphore set / polled read

// ---- NoC and DRAM ----
// NoC: 32 B flit per link per cycle; ~25.3 B/cycle measured for large transfers
// (tensix.md "NoC measured") -> a core's NoC port moves 25 B/cycle.
constexpr double kNocBytesPerCycle = 25.3;
// Small-transfer latency floor ~293 cycles (tensix.md "NoC measured"), used for a
// DRAM read round trip.
constexpr uint64_t kDramLatency = 293;
// Core-to-core: ~9 cycles per hop (tensix.md "NoC") + endpoint overhead: estimate 60.
constexpr uint64_t kNocHopLatency = 9;
constexpr uint64_t kNocEndpointLatency = 60;
// DRAM: 288 GB/s per chip over 12 banks at 1 GHz -> 24 B/cycle per bank (tensix.md "Chip").
constexpr int kDramBanks = 12;
constexpr double kDramBankBytesPerCycle = 288.0 / kDramBanks;

}  // namespace cost

// Cycles of one matmul_tiles at `fidelity`.
uint64_t matmul_tile_cycles(MathFidelity fidelity);
// Peak FLOP per cycle per core at `fidelity` (tensix.md: 4096 / phases).
double peak_flops_per_cycle(MathFidelity fidelity);

}  // namespace ttemu
