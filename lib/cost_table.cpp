#include "cost_table.h"

#include <algorithm>

namespace ttemu {

int fidelity_phases(MathFidelity fidelity) {
  switch (fidelity) {
    case MathFidelity::LoFi: return 1;
    case MathFidelity::HiFi2: return 2;
    case MathFidelity::HiFi3: return 3;
    case MathFidelity::HiFi4: return 4;
  }
  return 4;
}

const char* fidelity_name(MathFidelity fidelity) {
  switch (fidelity) {
    case MathFidelity::LoFi: return "LoFi";
    case MathFidelity::HiFi2: return "HiFi2";
    case MathFidelity::HiFi3: return "HiFi3";
    case MathFidelity::HiFi4: return "HiFi4";
  }
  return "?";
}

uint64_t matmul_tile_cycles(const CostTable& cost, MathFidelity fidelity) {
  return cost.matmul_tile_per_phase * static_cast<uint64_t>(fidelity_phases(fidelity));
}

namespace {
uint64_t matmul_floor(const CostTable& cost, DataFormat format) {
  switch (format) {
    case DataFormat::Float32: return cost.matmul_tile_floor_fp32;
    case DataFormat::Bfp8_b: return cost.matmul_tile_floor_bfp8_b;
    default: return cost.matmul_tile_floor_bf16;
  }
}
}  // namespace

uint64_t matmul_tile_cycles(const CostTable& cost, MathFidelity fidelity, DataFormat in0, DataFormat in1) {
  return std::max({matmul_tile_cycles(cost, fidelity), matmul_floor(cost, in0), matmul_floor(cost, in1)});
}

uint64_t reduce_tile_cycles(const CostTable& cost, MathFidelity fidelity) {
  return cost.reduce_tile_per_phase * static_cast<uint64_t>(fidelity_phases(fidelity));
}

double peak_flops_per_cycle(const CostTable& cost, MathFidelity fidelity) {
  return 2.0 * 32 * 32 * 32 / static_cast<double>(matmul_tile_cycles(cost, fidelity));
}

}  // namespace ttemu
