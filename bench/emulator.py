"""Benchmark: a 2048x2048x2048 bf16 matmul sharded over an 8x8 grid on the emulator.

Usage: .venv/bin/python bench/emulator.py [--size N] [--grid R C] [--dtype bf16|bfp8_b]
       [--fidelity LoFi|HiFi2|HiFi3|HiFi4]

The kernels are the hand-written matmul of test/emulator/kernels in tt-metal's 2D
multicast scheme (K block b is read by the core of column b and multicast along its
row, row 0 reads b and multicasts it down columns; K blocks of 8 tiles, 2x4-tile
subblocks in DST); with --no-multicast every core reads its own blocks. Cycles are the
calibrated cost model's (docs/cost_model.md), modeled, not measured. The runtime and kernels are compiled before
timing; `wall_s` is the host time of the emulated run alone (measured inside the
emulator process around the device run: no process start, imports, compilation or
tensor conversion). The last line is `wall_s=<seconds>`. `--dtype bfp8_b` stores a
and b as bfp8_b (the PCC is then against torch on the same quantized inputs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "emulator"))

import emulator_programs as programs  # noqa: E402
from results import Results  # noqa: E402

from ttlang.runtime import run_program  # noqa: E402
from ttlang.runtime import tiles, toolchain  # noqa: E402
from ttlang.runtime.program import ComputeConfig  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--grid", type=int, nargs=2, default=(8, 8))
    parser.add_argument("--no-multicast", action="store_true", help="every core reads its blocks from DRAM")
    parser.add_argument("--dtype", choices=("bf16", "bfp8_b"), default="bf16", help="format of a and b")
    parser.add_argument("--fidelity", choices=("LoFi", "HiFi2", "HiFi3", "HiFi4"), default="HiFi2")
    options = parser.parse_args()
    size, grid = options.size, tuple(options.grid)

    program = programs.matmul(
        size, size, size, grid, k_block=8, multicast=not options.no_multicast,
        compute_config=ComputeConfig(math_fidelity=options.fidelity), in_format=options.dtype,
    )  # fmt: skip
    toolchain.runtime_executable()
    toolchain.kernel_libraries(program.kernels, program.compute_config.math_approx_mode)

    torch.manual_seed(0)
    a = torch.randn(size, size, dtype=torch.bfloat16)
    b = torch.randn(size, size, dtype=torch.bfloat16)
    result = run_program(program, {"a": a, "b": b, "out": torch.zeros(size, size, dtype=torch.bfloat16)})

    expected = tiles.as_stored(a, options.dtype).float() @ tiles.as_stored(b, options.dtype).float()
    actual = result.outputs["out"].float()
    pcc = torch.corrcoef(torch.stack([actual.flatten(), expected.flatten()]))[0, 1].item()
    report = result.report
    print(f"matmul {size}^3 {options.dtype} on a {grid[0]}x{grid[1]} grid: PCC {pcc:.5f}")
    print(
        f"modeled_cycles={report.cycles} ({report.time_s * 1e3:.3f} ms modeled at 1 GHz, "
        f"{report.achieved_flops_per_s / 1e12:.2f} of {report.peak_flops_per_s / 1e12:.1f} TFLOP/s peak "
        f"{report.math_fidelity}), critical core {report.critical_core}"
    )
    print(f"wall_s={report.host_seconds:.3f}")
    Results("emulator").add(
        size=size,
        grid=f"{grid[0]}x{grid[1]}",
        multicast=not options.no_multicast,
        pcc=pcc,
        modeled_cycles=report.cycles,
        wall_s=report.host_seconds,
    )


if __name__ == "__main__":
    main()
