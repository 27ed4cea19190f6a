"""End-to-end test of d2m-split-prologue on the emulator against torch: `a * 0.5 +
a @ b` on a 4x4-tile block is a matmul accumulating onto the prologue `a *
bcast(0.5)` (d2m-scalar-tile-operand, d2m-accumulate-into-dst) in sections of 8 tiles
(4 with 32-bit DST). Split, the prologue's generic packs `a * 0.5` into the output
block and the matmul's packs add onto it in L1 (`pack_reconfig_l1_acc`), one init
each instead of both in every section.

The test checks the rewrite happened (a `d2m.l1_accumulate` generic after the pass,
L1 accumulation switched on in the compute kernel, which has no loop to need it
otherwise) so it cannot pass by the old path. a, b uniform in [-1, 1], K = 128: |out|
up to 18.0 here (bf16 ulp 2^-3 from 16 to 32). Measured against float32 torch: max-abs
0.084 (16-bit DST; 0.074 before the split) and 0.031 (32-bit; the same before), PCC
0.999995 and 0.999999; asserted: max-abs 0.25 (two ulps at the top of the range), PCC
0.9999. Modeled cycles before / after: 9,217 / 8,675 (16-bit), 9,385 / 8,563 (32-bit).
"""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import assert_close, binary_kernel, random_bf16, tensor_shape

BLOCK = (4, 4)
GRID = (1, 1)


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
def test_prologue_packed_then_matmul_added_in_l1(fp32_dest: bool):
    expr = lambda a, b: a * 0.5 + a @ b  # noqa: E731
    kernel = binary_kernel(expr, block=BLOCK, grid=GRID, fp32_dest=fp32_dest)
    shape = tensor_shape(grid=GRID, block=BLOCK)
    a = random_bf16(shape, -1.0, 1.0, seed=41)
    b = random_bf16(shape, -1.0, 1.0, seed=42)
    out = torch.zeros_like(a)
    artifact = kernel.compile(a, b, out)
    assert "d2m.l1_accumulate" in str(artifact.stages["d2m-split-prologue"])
    compute = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert "pack_reconfig_l1_acc(1)" in compute, compute
    artifact.run([a, b, out])
    expected = a.float() * 0.5 + a.float() @ b.float()
    assert_close(out.float(), expected, max_abs=0.25, min_pcc=0.9999)
