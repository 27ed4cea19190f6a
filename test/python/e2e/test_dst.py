"""End-to-end tests of the DST passes (fusion, subblocking, DST allocation with spills)
on the emulator against torch, with 16-bit and 32-bit (fp32 accumulation) DST.

Each kernel runs one block per core on a 2x1 grid (rows split, so a row stays on one
core); the block shape varies. Besides the numbers, each test checks the IR facts it
is about (one fused generic, subblocks, spills), so a test cannot pass by a fallback
path.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import torch
from e2e_kernels import TILE, assert_close, binary_kernel, random_bf16, unary_kernel
from ttlang import maximum
from ttlang.conversion.program_builder import build_program
from ttlang.driver import DEFAULT_PIPELINE, make_context
from ttlang.pipeline import build_pipeline
from ttlang.runtime import run_program

GRID = (2, 1)


def block_kernel(expr: Callable, inputs: int, block: tuple[int, int], fp32_dest: bool):
    """out block = expr(*input blocks), one `block` of tiles per core of GRID."""
    factory = unary_kernel if inputs == 1 else binary_kernel
    return factory(expr, block=block, grid=GRID, fp32_dest=fp32_dest)


def _shape(block: tuple[int, int]) -> tuple[int, int]:
    return (GRID[0] * block[0] * TILE, GRID[1] * block[1] * TILE)


def _compute_generics(ir: str) -> int:
    """linalg.generics in the compute region (the first thread region) of a stage."""
    compute_region = ir.split("d2m.generic", 1)[1].split("}, {", 1)[0]
    return compute_region.count("linalg.generic")


def chain13(x, y):
    """13 operators: one fused generic, no intermediate leaves DST."""
    t = (x * y + x) * 0.5
    t = (t.exp() - y).abs()
    t = ((t + 1.0).sqrt()).recip()
    t = maximum(t, y).neg() * x
    return t / 2.0


def chain13_torch(x, y):
    t = (x * y + x) * 0.5
    t = (t.exp() - y).abs()
    t = ((t + 1.0).sqrt()).reciprocal()
    t = torch.maximum(t, y).neg() * x
    return t / 2.0


DST_MODES = [False, True]
DST_IDS = ["dst16", "dst32"]


@pytest.mark.parametrize("fp32_dest", DST_MODES, ids=DST_IDS)
def test_fused_chain_of_13_ops(fp32_dest: bool):
    block = (2, 2)
    kernel = block_kernel(chain13, 2, block, fp32_dest)
    x = random_bf16(_shape(block), -1.0, 1.0, seed=1)
    y = random_bf16(_shape(block), -1.0, 1.0, seed=2)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, y, out)
    assert _compute_generics(artifact.stages["frontend"]) == 13
    assert _compute_generics(artifact.stages["d2m-elementwise-fusion"]) == 1
    assert len(artifact.program.cbs) == 3  # the operands only: no intermediate CB
    artifact.run([x, y, out])
    expected = chain13_torch(x.float(), y.float())
    assert_close(out.float(), expected, max_abs=3e-2, min_pcc=0.999)


def softmax(x):
    """Row softmax: row max and row sum reductions, both broadcast along the columns."""
    e = (x - x.rowmax()).exp()
    return e / e.rowsum()


BLOCK_CASES = [
    ((1, 1), False),
    ((2, 2), False),
    ((4, 4), False),
    ((8, 8), False),
    ((3, 5), False),
    ((3, 5), True),
    ((8, 8), True),
]


@pytest.mark.parametrize(
    "block, fp32_dest",
    BLOCK_CASES,
    ids=[f"{r}x{c}-{'dst32' if f else 'dst16'}" for (r, c), f in BLOCK_CASES],
)
def test_softmax_blocks(block: tuple[int, int], fp32_dest: bool):
    kernel = block_kernel(softmax, 1, block, fp32_dest)
    x = random_bf16(_shape(block), -4.0, 4.0, seed=3)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, out)
    capacity = 4 if fp32_dest else 8
    tiles = block[0] * block[1]
    # A block beyond DST capacity is split into subblocks.
    assert ("d2m.subblock" in artifact.stages["d2m-tile-subblock"]) == (tiles > capacity)
    artifact.run([x, out])
    assert_close(out.float(), torch.softmax(x.float(), dim=-1), max_abs=2e-2, min_pcc=0.999)


def many_live(x, y):
    """Six values computed before the first is consumed: six live in DST at once for
    every tile, where fp32 half sync holds four."""
    a, b, c, d = x.exp(), y.exp(), (x * y).abs(), (x - y).abs()
    e, f = (x + y).abs(), (x * 0.5).exp()
    return a + (b * (c + (d - (e * f))))


def test_spills_in_fp32_half_sync():
    block = (2, 2)
    kernel = block_kernel(many_live, 2, block, fp32_dest=True)
    x = random_bf16(_shape(block), -1.0, 1.0, seed=4)
    y = random_bf16(_shape(block), -1.0, 1.0, seed=5)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, y, out)
    allocated = artifact.stages["d2m-dst-allocate"]
    assert _compute_generics(allocated) == 2  # the chain, and the 0.5 tile x * 0.5 reads
    assert re.search(r"d2m\.subblock = array<i64: 1, 1>", allocated)
    assert "d2m.dst_spill" in allocated
    artifact.run([x, y, out])
    xf, yf = x.float(), y.float()
    a, b, c, d = xf.exp(), yf.exp(), (xf * yf).abs(), (xf - yf).abs()
    e, f = (xf + yf).abs(), (xf * 0.5).exp()
    expected = a + (b * (c + (d - (e * f))))
    # |out| reaches ~20, where bf16 spacing is 0.125: half a step of output rounding.
    assert_close(out.float(), expected, max_abs=0.07, min_pcc=0.999)


def copied_in_dst(x, y):
    """d is read again after exp works on a copy of it: DST allocation copies d from
    slot to slot (a `d2m.tile_copy` of a DST tile) before the in-place neg and exp."""
    d = x.exp() - y
    return d.neg().exp() * d


@pytest.mark.parametrize("fp32_dest", DST_MODES, ids=DST_IDS)
def test_dst_to_dst_copy(fp32_dest: bool):
    block = (2, 2)
    kernel = block_kernel(copied_in_dst, 2, block, fp32_dest)
    x = random_bf16(_shape(block), -1.0, 1.0, seed=6)
    y = random_bf16(_shape(block), -1.0, 1.0, seed=7)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, y, out)
    # The copy of d (computed in DST, not read from a CB) is one copy_dest_values,
    # destination slot first, in place of the former binary_max_tile(s, s, d).
    allocated = artifact.stages["d2m-dst-allocate"]
    copies = re.findall(r"= d2m\.tile_copy (%\w+) \{d2m\.dst_slot = (\d+)", allocated)
    subs = re.findall(r"(%\w+) = d2m\.tile_sub .*d2m\.dst_slot = (\d+)", allocated)
    assert len(subs) == 1 and [c for c in copies if c[0] == subs[0][0]], allocated
    compute = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert '#include "api/compute/copy_dest_values.h"' in compute
    assert len(re.findall(r"\bcopy_dest_values<DataFormat::Float(16_b|32)>\(\w+, \w+\);", compute)) == 1
    assert "binary_max_tile" not in compute
    artifact.run([x, y, out])
    d = x.float().exp() - y.float()
    assert_close(out.float(), (-d).exp() * d, max_abs=2e-2, min_pcc=0.999)


def in_place_on_copied_input(x, y):
    """x is copied to DST for maximum and read again by the in-place rsub and the sub:
    the rsub's own copy of x comes from x's CB (a fuzzer finding: it was an SFPU copy
    of the CB tile, which convert-d2m-to-ttkernel rejected)."""
    return (maximum(x, -0.5) - (3.0 - x)) * (x - y.colmax().rowmax())


@pytest.mark.parametrize("fp32_dest", DST_MODES, ids=DST_IDS)
def test_in_place_op_on_copied_input(fp32_dest: bool):
    block = (2, 2)
    kernel = block_kernel(in_place_on_copied_input, 2, block, fp32_dest)
    x = random_bf16(_shape(block), -2.0, 2.0, seed=8)
    y = random_bf16(_shape(block), -2.0, 2.0, seed=9)
    out = torch.zeros_like(x)
    kernel(x, y, out)
    rows = block[0] * TILE
    expected = torch.empty_like(x, dtype=torch.float32)
    for r in range(GRID[0]):  # one block per core; the max is over the core's block of y
        xb, yb = x[r * rows : (r + 1) * rows].float(), y[r * rows : (r + 1) * rows].float()
        expected[r * rows : (r + 1) * rows] = (torch.clamp(xb, min=-0.5) - (3.0 - xb)) * (xb - yb.max())
    # |result| <= 4.5 * 4: a few bf16 ulps (2^-8 relative) of 18
    assert_close(out.float(), expected, max_abs=0.25, min_pcc=0.999)


def _run_with(kernel, tensors: list[torch.Tensor], replace: dict[str, str]) -> None:
    """Compiles `kernel` for `tensors` with the default pipeline, each pass named in
    `replace` run with the given spec instead (pass options), and runs it."""
    module = kernel.frontend_module(*tensors)
    ctx = make_context()
    for name in DEFAULT_PIPELINE:
        build_pipeline(replace.get(name, name)).apply(ctx, module)
    run_program(build_program(module), tensors)


def test_subblock_choice_counts_pack():
    """exp over a 4x8 block (bf16, half sync: 8 DST tiles a section): the packer drains
    one DST half while math fills the other, so d2m-tile-subblock takes 1x4 subblocks
    (less pack left after the last math) where the largest that fits is 1x8. Same
    tiles, same ops: the output is bit-identical to the largest-fit pipeline's."""
    block = (4, 8)
    kernel = block_kernel(lambda x: x.exp(), 1, block, fp32_dest=False)
    x = random_bf16(_shape(block), -2.0, 2.0, seed=10)
    out = torch.zeros_like(x)
    artifact = kernel.compile(x, out)
    assert "d2m.subblock = array<i64: 1, 4>" in artifact.stages["d2m-tile-subblock"]
    artifact.run([x, out])
    assert_close(out.float(), x.float().exp(), max_abs=6e-2, min_pcc=0.999)
    largest = torch.zeros_like(x)
    _run_with(kernel, [x, largest], {"d2m-tile-subblock": "d2m-tile-subblock{largest_fit=true}"})
    assert torch.equal(out, largest)
