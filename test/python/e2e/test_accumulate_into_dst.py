"""End-to-end tests of d2m-accumulate-into-dst on the emulator against torch: a matmul
whose result is only added to another value accumulates onto that value in DST (no
SFPU add), in 16-bit and 32-bit DST. The reductions' forms (`l * c + rowsum(p)`,
`maximum(m, rowmax(s))`) run in the online-attention tests (test_many_matmuls.py and
the FlashAttention tests), which compare with torch too.

Besides the numbers, each test checks that the rewrite happened (the generic has a
`d2m.prologue` and the compute kernel no SFPU add), so it cannot pass by the old path.
"""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, binary_kernel, random_bf16

GRID = (2, 1)
BLOCK = (2, 2)


def scaled_residual_matmul(a, b):
    return a * 0.5 + a @ b


def residual_matmul(a, b):
    return b + a @ b


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
@pytest.mark.parametrize(
    "expr, reference",
    [
        (scaled_residual_matmul, lambda a, b: a * 0.5 + a @ b),
        (residual_matmul, lambda a, b: b + a @ b),
    ],
    ids=["x*s+a@b", "x+a@b"],
)
def test_matmul_accumulates_onto_dst(expr, reference, fp32_dest: bool):
    kernel = binary_kernel(expr, block=BLOCK, grid=GRID, fp32_dest=fp32_dest)
    shape = (GRID[0] * BLOCK[0] * TILE, GRID[1] * BLOCK[1] * TILE)
    a = random_bf16(shape, -1.0, 1.0, seed=21)
    b = random_bf16(shape, -1.0, 1.0, seed=22)
    out = torch.zeros_like(a)
    artifact = kernel.compile(a, b, out)
    assert "d2m.prologue" in artifact.stages["d2m-accumulate-into-dst"]
    compute = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert "matmul_tiles" in compute and "add_binary_tile" not in compute
    artifact.run([a, b, out])
    expected = torch.cat(
        [reference(a[r].float(), b[r].float()) for r in torch.chunk(torch.arange(shape[0]), 2)]
    )
    assert_close(out.float(), expected, max_abs=0.1, min_pcc=0.999)
