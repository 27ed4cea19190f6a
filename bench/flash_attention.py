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
from results import Results, progress

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, default=5, help="compilations timed per shape")
    parser.add_argument("--quick", action="store_true", help="the two smallest shapes only")
    options = parser.parse_args()
    fa = load_example()
    header = (
        f"{'shape [B,H,S,D]':<20} {'causal':<6} {'chunks q/k':<10} {'compile s':>9} "
        f"{'emul s':>7} {'cycles':>9} {'TFLOP/s':>8} {'% peak':>7}  bottleneck"
    )
    print(header)
    print("-" * len(header))
    all_compiles = []
    results = Results("flash_attention")
    for shape, causal in progress(QUICK_SHAPES if options.quick else SHAPES, "shapes"):
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
        compiles = compile_seconds(fa, compiled, options.compiles)
        all_compiles += compiles
        print(
            f"{list(shape)!s:<20} {'yes' if causal else 'no':<6} "
            f"{f'{compiled.q_chunk}/{compiled.k_chunk}':<10} {statistics.median(compiles):>9.3f} "
            f"{emulator_seconds:>7.2f} {report.cycles:>9} {tflops:>8.2f} {100 * tflops / peak:>6.1f}%  "
            f"{bottleneck(report)}",
            flush=True,
        )
        results.add(
            shape=str(list(shape)),
            causal=causal,
            q_chunk=compiled.q_chunk,
            k_chunk=compiled.k_chunk,
            compile_s=statistics.median(compiles),
            emulator_s=emulator_seconds,
            modeled_cycles=report.cycles,
            tflops=tflops,
            peak_percent=100 * tflops / peak,
            bottleneck=bottleneck(report),
        )
    print(f"peak: n150 8x8 at {report.math_fidelity}, {peak:.0f} TFLOP/s; clock 1 GHz")
    print(f"compile_median_s={statistics.median(all_compiles):.3f}")


if __name__ == "__main__":
    main()
