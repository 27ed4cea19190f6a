"""Benchmark: DST use and CB traffic of a fixed set of kernels, with and without the
D2M passes that keep values in DST.

Usage: .venv/bin/python bench/dst.py

For each kernel, five pipelines:

- `unfused`: the default pipeline without `d2m-elementwise-fusion` and
  `d2m-accumulate-into-dst` (every DSL operator is a generic of its own: each
  temporary is packed into a CB and unpacked again);
- `fused`: the default pipeline without `d2m-accumulate-into-dst` (a reduction's
  result is combined with another value by a separate SFPU op);
- `accum`: the default pipeline without `d2m-reciprocal-divisor`,
  `d2m-deferred-row-sum` and `d2m-packer-l1-accumulate`, and with `ttkernel-place-inits{init_groups=false}`: a matmul or reduction accumulates onto the
  value its result is added to (or maxed with), but a division by a broadcast block
  runs on the SFPU for every output tile, and every init is taken to reconfigure the
  whole core (an SFPU init and an FPU init alternating in a loop are both re-issued on
  every iteration);
- `rowsum`: the default pipeline without `d2m-deferred-row-sum` (and so without
  anything for `d2m-row-sum-on-pack` to do): a row sum carried by a loop
  (`l = l * a + rowsum(x)`) reduces every tile of `x` (reduce_tile) instead of adding the
  tiles onto a tile-wide partial (in DST, or by the packer of the generic computing
  them) and row-summing it once after the loop (the row "deferred row sum" compares it
  with `default` where they differ);
- `reload`: the default pipeline without `d2m-packer-l1-accumulate`: a sum carried by
  a loop (`acc = acc + a @ b` over K blocks) is copied from its CB into DST every
  iteration and packed into the other block of a two-block CB (the row "packer L1
  accumulation" compares it with `default` where they differ);
- `largest`: the default pipeline with `d2m-tile-subblock{largest_fit=true}`: a generic
  whose block overflows DST is split into the largest subblocks that fit, instead of
  the shape with the fewest modeled cycles when the math of one subblock overlaps the
  pack of the previous (the row "subblock choice" compares it with `default` where
  they differ);
- `default`: the default pipeline (`ttlang.driver.DEFAULT_PIPELINE`): also
  `x / bcast(y)` as `x * bcast(recip(y))`, SFPU and FPU inits that hold together
  hoisted out of loops together, loop-carried row sums kept as tile-wide partials, and
  loop-carried matmul sums added up by the packer in L1 (`pack_reconfig_l1_acc`), with
  no copy into DST.

The passes that make lowering possible (bufferization, d2m-memref-provenance,
d2m-tile-subblock, d2m-dst-allocate) run in all. Columns:

- `DST peak/cap`: the most DST tiles a section of the kernel uses, against the capacity
  of its compute configuration (d2m-dst-allocate's report);
- `spills`: tiles spilled to L1 per execution of each generic, summed;
- `syncs`: DST sync sections per execution of each generic, summed (a generic inside a
  loop counts once);
- `unpacked` / `packed`: tiles the compute threads of all cores read from CBs into DST
  or the FPU's source registers, and packed into CBs, in the emulated run (the
  emulator's per-thread counters, `TimingReport.cb_tile_traffic`);
- `CBs`: circular buffers of the program (operands and compute-local);
- `cycles`: the cost model's modeled cycles for the run (critical core).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # test_programs imports examples.matmul
sys.path.insert(0, str(ROOT / "test" / "python" / "e2e"))
sys.path.insert(0, str(ROOT / "examples"))

import test_many_matmuls as many_matmuls  # noqa: E402
from e2e_kernels import binary_kernel, random_bf16, unary_kernel  # noqa: E402
from matmul import matmul_kernel  # noqa: E402
from matmul_implicit import matmul_kernel as implicit_matmul_kernel  # noqa: E402
from softmax import softmax  # noqa: E402
from test_programs import fused_chain  # noqa: E402

from results import Results, progress  # noqa: E402
from ttlang.driver import DEFAULT_PIPELINE, make_context  # noqa: E402
from ttlang.pipeline import build_pipeline  # noqa: E402
from ttlang.runtime import run_program  # noqa: E402
from ttlang.conversion.program_builder import build_program  # noqa: E402

FUSION = "d2m-elementwise-fusion"
ACCUMULATE = "d2m-accumulate-into-dst"
DST_ALLOCATE = "d2m-dst-allocate"
RECIPROCAL = "d2m-reciprocal-divisor"
PLACE_INITS = "ttkernel-place-inits"
L1_ACCUMULATE = "d2m-packer-l1-accumulate"
DEFERRED_ROW_SUM = "d2m-deferred-row-sum"
SUBBLOCK = "d2m-tile-subblock"
REPORT_LINE = re.compile(
    r"peak (?P<peak>\d+)/(?P<capacity>\d+) DST tiles, spills (?P<spills>\d+) tiles, "
    r"sync sections (?P<syncs>\d+)"
)


def scaled_residual_matmul(a, b):
    """A matmul added to a scaled input (a residual connection): `a * 0.5 + a @ b`."""
    return a * 0.5 + a @ b


def chain_of_12(x):
    """Twelve elementwise operators on one block."""
    y = (x * 0.5 + 1.0).exp()
    y = (y - 1.0).abs().sqrt()
    y = (y * y + x).neg()
    return (y * 0.25 - 2.0).exp().recip()


@dataclass(frozen=True)
class Case:
    name: str
    kernel: Callable
    tensors: Callable[[], list[torch.Tensor]]


def _chain_tensors() -> list[torch.Tensor]:
    x = random_bf16((128, 128), -1.0, 1.0, seed=1)
    return [x, torch.zeros_like(x)]


def _fused_chain_tensors() -> list[torch.Tensor]:
    a, b = (random_bf16((128, 128), -0.3, 0.3, seed=s) for s in (2, 3))
    return [a, b, torch.zeros_like(a)]


def _residual_tensors() -> list[torch.Tensor]:
    a, b = (random_bf16((128, 128), -0.5, 0.5, seed=s) for s in (12, 13))
    return [a, b, torch.zeros_like(a)]


def _softmax_tensors() -> list[torch.Tensor]:
    x = random_bf16((64, 128), -2.0, 2.0, seed=4)
    return [x, torch.zeros_like(x)]


def _matmul_tensors() -> list[torch.Tensor]:
    m = many_matmuls
    shapes = [(m.M, m.K), (m.K, m.N), (m.N, m.P), (m.P, m.Q)]
    inputs = [
        random_bf16((r * 32, c * 32), -0.5, 0.5, seed=5 + i) for i, (r, c) in enumerate(shapes)
    ]
    return [*inputs, torch.zeros(m.M * 32, m.Q * 32, dtype=torch.bfloat16)]


def _attention_tensors() -> list[torch.Tensor]:
    m = many_matmuls
    q = random_bf16((m.SQ * 32, m.HEAD * 32), -1.0, 1.0, seed=9)
    k, v = (random_bf16((m.CHUNKS * m.SK * 32, m.HEAD * 32), -1.0, 1.0, seed=s) for s in (10, 11))
    return [q, k, v, torch.zeros_like(q)]


def _k_streaming_tensors(m: int, k: int, n: int) -> Callable[[], list[torch.Tensor]]:
    def tensors() -> list[torch.Tensor]:
        a = random_bf16((m, k), -1.0, 1.0, seed=14)
        b = random_bf16((k, n), -1.0, 1.0, seed=15)
        return [a, b, torch.zeros(m, n, dtype=torch.bfloat16)]

    return tensors


CASES = [
    Case("chain of 12 eltwise", unary_kernel(chain_of_12), _chain_tensors),
    Case("transpose-matmul chain", fused_chain, _fused_chain_tensors),
    Case("row softmax", softmax, _softmax_tensors),
    Case(
        "matmul + scaled residual",
        binary_kernel(scaled_residual_matmul, block=(4, 4), grid=(1, 1)),
        _residual_tensors,
    ),
    Case("3 chained matmuls", many_matmuls.chained_matmuls(False), _matmul_tensors),
    Case("attention (2 matmuls/iter)", many_matmuls.attention(False), _attention_tensors),
    # examples/matmul.py: 4x4 grid, 2x2-tile blocks, 4 K blocks
    Case("K-streaming matmul", matmul_kernel(), _k_streaming_tensors(256, 256, 256)),
    # examples/matmul_implicit.py: 4x4 grid, 2x2-tile blocks, 8 K blocks, 2 out blocks per core
    Case(
        "implicit matmul, 8 K blocks",
        implicit_matmul_kernel((4, 4), 2, 8, 2),
        _k_streaming_tensors(512, 512, 256),
    ),
]


@dataclass(frozen=True)
class Measurement:
    peak: int
    capacity: int
    spills: int
    syncs: int
    unpacked: int
    packed: int
    cbs: int
    cycles: int


def measure(case: Case, pipeline: tuple[str, ...]) -> Measurement:
    """Compiles `case` with `pipeline` (d2m-dst-allocate reporting), runs it, and
    collects the DST report and the emulator's CB traffic."""
    tensors = case.tensors()
    module = case.kernel.frontend_module(*tensors)
    ctx = make_context()
    captured = io.StringIO()
    with contextlib.redirect_stderr(captured):
        for name in pipeline:
            spec = f"{name}{{report=true}}" if name == DST_ALLOCATE else name
            build_pipeline(spec).apply(ctx, module)
    reports = [m.groupdict() for m in REPORT_LINE.finditer(captured.getvalue())]
    program = build_program(module)
    report = run_program(program, tensors).report
    unpacked, packed = report.cb_tile_traffic
    return Measurement(
        peak=max(int(r["peak"]) for r in reports),
        capacity=int(reports[0]["capacity"]),
        spills=sum(int(r["spills"]) for r in reports),
        syncs=sum(int(r["syncs"]) for r in reports),
        unpacked=unpacked,
        packed=packed,
        cbs=len(program.cbs),
        cycles=report.cycles,
    )


def main() -> None:
    default = tuple(DEFAULT_PIPELINE)
    accum = tuple(
        f"{name}{{init_groups=false}}" if name == PLACE_INITS else name
        for name in default
        if name not in (RECIPROCAL, DEFERRED_ROW_SUM, L1_ACCUMULATE)
    )
    fused = tuple(name for name in accum if name != ACCUMULATE)
    unfused = tuple(name for name in fused if name != FUSION)
    rowsum = tuple(name for name in default if name != DEFERRED_ROW_SUM)
    reload = tuple(name for name in default if name != L1_ACCUMULATE)
    largest = tuple(f"{name}{{largest_fit=true}}" if name == SUBBLOCK else name for name in default)
    pipelines = {
        "unfused": unfused, "fused": fused, "accum": accum, "rowsum": rowsum, "reload": reload,
        "largest": largest, "default": default,
    }  # fmt: skip
    header = (
        f"{'kernel':<28} {'pipeline':<7} {'DST peak/cap':>12} {'spills':>6} {'syncs':>5} "
        f"{'unpacked':>8} {'packed':>6} {'CBs':>3} {'cycles':>8}"
    )
    print("cycles are modeled (the emulator's cost model)")
    print(header)
    print("-" * len(header))
    table = Results("dst")
    for case in progress(CASES, "kernels"):
        results = {label: measure(case, p) for label, p in pipelines.items()}
        for label, r in results.items():
            table.add(kernel=case.name, pipeline=label, **vars(r))
            print(
                f"{case.name if label == 'unfused' else '':<28} {label:<7} "
                f"{f'{r.peak}/{r.capacity}':>12} {r.spills:>6} {r.syncs:>5} "
                f"{r.unpacked:>8} {r.packed:>6} {r.cbs:>3} {r.cycles:>8}"
            )
        cut = results["unfused"].unpacked + results["unfused"].packed
        kept = results["default"].unpacked + results["default"].packed
        fused, accum, default = (results[k].cycles for k in ("fused", "accum", "default"))
        print(
            f"{'':<28} CB<->DST tiles: {cut} -> {kept} ({100 * (cut - kept) / cut:.0f}% fewer); "
            f"modeled cycles fused -> accum -> default: {fused} -> {accum} -> {default} "
            f"({100 * (fused - default) / fused:.0f}% fewer)"
        )
        for label, change in (("rowsum", "deferred row sum"), ("reload", "packer L1 accumulation")):
            before, after = results[label], results["default"]
            if before.unpacked != after.unpacked:
                print(
                    f"{'':<28} {change} ({label} -> default): tiles unpacked "
                    f"{before.unpacked} -> {after.unpacked}, modeled cycles "
                    f"{before.cycles} -> {after.cycles}"
                )
        before, after = results["largest"], results["default"]
        if before.syncs != after.syncs:
            print(
                f"{'':<28} subblock choice (largest -> default): sync sections "
                f"{before.syncs} -> {after.syncs}, modeled cycles {before.cycles} -> {after.cycles}"
            )


if __name__ == "__main__":
    main()
