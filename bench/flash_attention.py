"""Benchmark: FlashAttention (examples/flash_attention.py) over a set of shapes on 8x8.

Usage: .venv/bin/python bench/flash_attention.py [--compiles N] [--quick]

Per shape (default chunk sizes): the compile time Python -> C++ (frontend, every pass,
C++ emission and program assembly; g++ excluded), the median of N compilations of a
fresh, uncached kernel; the emulator's wall time for one run (kernels already built
by g++); the modeled cycles of the critical core, TFLOP/s (4·B·H·S²·D FLOPs, halved
when causal) and the share of the n150 8x8 peak at the kernel's fidelity; and the
bottleneck named from the cost model's per-thread busy / waiting cycles:

- compute: the compute thread is busy most of the critical core's time (its math,
  SFPU and pack calls);
- K/V reads: the compute thread waits for its input CBs for a large share of the time
  (the reader, i.e. DRAM/NoC, does not keep up);
- imbalance: the critical core runs much longer than the average core (more or
  costlier work units: causal Q chunks near the end see more K/V chunks).

Then the roofline (`roofline`): the largest of three modeled floors, each from the
device description's costs — the compute floor (the cheapest tile operations the math
needs at the kernel's fidelity, spread evenly over the cores), the DRAM floor (Q, K, V
read and O written once) and the NoC floor (the K/V bytes each core needs at one port's
bandwidth) — and `of roof`, the roofline over the achieved modeled cycles.

The last line is `compile_median_s=<seconds>` (over all shapes).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import torch

from ttlang.device import load_device

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "flash_attention.py"

SHAPES = [
    # (batch, heads, seq_len, head_dim), causal
    ((1, 8, 512, 64), False),
    ((1, 8, 512, 64), True),
    ((1, 8, 2048, 64), False),
    ((1, 8, 2048, 64), True),
    ((1, 8, 2048, 128), False),
    ((1, 8, 2048, 128), True),
    ((2, 8, 4096, 64), False),
]
QUICK_SHAPES = SHAPES[:2]


def load_example():
    spec = importlib.util.spec_from_file_location("flash_attention_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def compile_seconds(fa, compiled, compiles: int) -> list[float]:
    """Wall times of `compiles` compilations of the same kernel, each from a fresh kernel
    object (no compile cache); g++ is not involved."""
    *_, seq_len, head_dim = compiled.shape
    specs = fa._specs(compiled.shape, compiled.causal, compiled.q_chunk, compiled.k_chunk)
    seconds = []
    for _ in range(compiles):
        kernel = fa.flash_attention_kernel.__wrapped__(
            compiled.grid,
            compiled.q_chunk,
            compiled.k_chunk,
            head_dim,
            compiled.causal,
            False,
        )
        start = time.perf_counter()
        kernel.compile(*specs, seq_len=seq_len, scale=compiled.scale)
        seconds.append(time.perf_counter() - start)
    return seconds


def bottleneck(report) -> str:
    """The critical core's limiting part, from its threads' busy / waiting cycles."""
    critical = next(c for c in report.cores if c.core == report.critical_core)
    threads = {t.thread: t for t in critical.threads}
    compute = threads["compute"]
    mean_cycles = sum(c.cycles for c in report.cores) / len(report.cores)
    busy = compute.busy / report.cycles
    waiting = compute.waiting / report.cycles
    imbalance = report.cycles / mean_cycles
    if imbalance > 1.25:
        name = "imbalance"
    elif waiting > 0.3:
        name = "K/V reads"
    else:
        name = "compute"
    return f"{name} (compute busy {busy:.0%}, waits {waiting:.0%}; max/mean core {imbalance:.2f})"


FIDELITY_PHASES = {"LoFi": 1, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}


def roofline(compiled, fidelity: str, cores: int) -> tuple[int, int, int]:
    """Modeled floors of one run, in cycles of the critical core, from the device
    description's costs (`ttlang.device`):

    - compute: the cheapest tile operations the math needs, spread evenly over the
      cores: per (Q chunk, K chunk) pair the two matmuls at the fidelity's phases, the
      scores' max subtraction and approximate exp, row max and row sum reduces, the
      rescale of m, l and acc (plus the mask add on causal diagonal pairs); per Q chunk
      the final recip and multiply;
    - DRAM: Q, K and V read once and O written once at every bank's bandwidth;
    - NoC: the K/V chunks each core needs, received at one core's port bandwidth.
    """
    device = load_device()
    cost, phases = device.costs, FIDELITY_PHASES[fidelity]
    batch, heads, seq_len, head_dim = compiled.shape
    q_chunk, k_chunk = compiled.q_chunk, compiled.k_chunk
    qt, kt, dt = q_chunk // 32, k_chunk // 32, head_dim // 32
    mul = cost["eltwise_mul_tile_per_phase"] * phases
    pair = (
        2 * qt * kt * dt * cost["matmul_tile_per_phase"] * phases
        + qt * kt * (cost["eltwise_add_tile"] + cost["exp_approx_tile"] + 2 * cost["reduce_tile"])
        + qt * (cost["eltwise_add_tile"] + cost["exp_approx_tile"] + mul)
        + qt * dt * mul
    )
    mask = qt * kt * cost["eltwise_add_tile"]
    finish = qt * (cost["recip_tile"] + dt * mul)
    q_chunks = seq_len // q_chunk
    compute = pairs = 0
    for i in range(q_chunks):
        end = -(-(i + 1) * q_chunk // k_chunk) if compiled.causal else seq_len // k_chunk
        diagonal = (i * q_chunk) // k_chunk if compiled.causal else end
        compute += end * pair + (end - diagonal) * mask + finish
        pairs += end
    heads_total = batch * heads
    compute_floor = compute * heads_total / cores
    tensor_bytes = heads_total * seq_len * head_dim * 2  # bf16
    dram_floor = 4 * tensor_bytes / (device.dram.banks * device.dram.bank_bytes_per_cycle)
    kv_bytes_per_core = pairs * heads_total * 2 * k_chunk * head_dim * 2 / cores
    noc_floor = kv_bytes_per_core / device.noc["port_bytes_per_cycle"]
    return round(compute_floor), round(dram_floor), round(noc_floor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, default=5, help="compilations timed per shape")
    parser.add_argument("--quick", action="store_true", help="the two smallest shapes only")
    options = parser.parse_args()
    fa = load_example()
    header = (
        f"{'shape [B,H,S,D]':<20} {'causal':<6} {'chunks q/k':<10} {'compile s':>9} "
        f"{'emul s':>7} {'cycles':>9} {'TFLOP/s':>8} {'% peak':>7} {'roofline':>9} "
        f"{'of roof':>7}  bottleneck"
    )
    print(header)
    print("-" * len(header))
    all_compiles = []
    for shape, causal in QUICK_SHAPES if options.quick else SHAPES:
        compiled = fa.compile_flash_attention(shape, causal=causal)
        generator = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(shape, generator=generator).to(torch.bfloat16) for _ in range(3))
        compiled.run(q, k, v)  # builds the kernels with g++ (cached) before the timed run
        start = time.perf_counter()
        compiled.run(q, k, v)
        emulator_seconds = time.perf_counter() - start
        report = compiled.artifact.perf()
        seconds = report.cycles / report.clock_hz
        tflops = compiled.flops / seconds / 1e12
        peak = fa.N150_CORES * fa.PEAK_FLOP_PER_CYCLE[report.math_fidelity] * report.clock_hz / 1e12
        floors = roofline(compiled, report.math_fidelity, fa.N150_CORES)
        compiles = compile_seconds(fa, compiled, options.compiles)
        all_compiles += compiles
        print(
            f"{list(shape)!s:<20} {'yes' if causal else 'no':<6} "
            f"{f'{compiled.q_chunk}/{compiled.k_chunk}':<10} {statistics.median(compiles):>9.3f} "
            f"{emulator_seconds:>7.2f} {report.cycles:>9} {tflops:>8.2f} "
            f"{100 * tflops / peak:>6.1f}% "
            f"{max(floors):>9} {max(floors) / report.cycles:>7.2f}  {bottleneck(report)}; floors "
            f"compute/DRAM/NoC {'/'.join(map(str, floors))}",
            flush=True,
        )
    print(f"peak: n150 8x8 at {report.math_fidelity}, {peak:.0f} TFLOP/s; clock 1 GHz")
    print(f"compile_median_s={statistics.median(all_compiles):.3f}")


if __name__ == "__main__":
    main()
