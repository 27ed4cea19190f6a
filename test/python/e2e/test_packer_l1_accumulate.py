"""End-to-end tests of d2m-packer-l1-accumulate on the emulator against torch: a matmul
streaming K blocks into a loop-carried `acc = acc + a @ b` sums them with the packer in
L1 (`pack_reconfig_l1_acc`), with no copy of the running sum into DST in the loop.

Besides the numbers, each test checks the generated compute kernel: L1 accumulation is
switched on, and the only `copy_tile` left (the result copied to the output CB) comes
after it is switched off, so the test cannot pass by the reload path.

Tolerances: inputs uniform in [-1, 1], K = 256 in 4 K blocks: sums up to ~24 in
magnitude, bf16 output (an ulp is 0.125 between 16 and 32). Each K block's partial sum
is rounded to bf16 in DST (16-bit DST) and the running sum once by the packer per K
block. Measured against float64 torch: max-abs 0.139 (16-bit DST), 0.105 (32-bit DST),
0.119 (implicit), PCC 0.99999 (the reload path on the same inputs: 0.161, 0.105,
0.133); asserted: max-abs 0.25 (two ulps), PCC 0.9999.
"""

from __future__ import annotations

import pytest
import torch

from e2e_kernels import TILE, assert_close, random_bf16
from examples.matmul import matmul_kernel
from examples.matmul_implicit import matmul_kernel as implicit_matmul_kernel

MAX_ABS = 0.25
MIN_PCC = 0.9999


def _compute_source(artifact) -> str:
    return next(k.source for k in artifact.program.kernels if k.kind == "compute")


def _assert_sums_in_l1(artifact) -> None:
    source = _compute_source(artifact)
    on, off = source.find("pack_reconfig_l1_acc(1)"), source.find("pack_reconfig_l1_acc(0)")
    assert 0 <= on < off, source
    assert source.find("copy_tile(", 0, off) == -1, "the running sum is reloaded into DST"


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
def test_k_streaming_matmul_sums_in_l1(fp32_dest: bool):
    """examples/matmul.py: 4x4 grid, 2x2-tile blocks, 4 K blocks."""
    kernel = matmul_kernel(fp32_dest_acc_en=fp32_dest)
    a = random_bf16((256, 256), -1.0, 1.0, seed=31)
    b = random_bf16((256, 256), -1.0, 1.0, seed=32)
    out = torch.zeros(256, 256, dtype=torch.bfloat16)
    artifact = kernel.compile(a, b, out)
    _assert_sums_in_l1(artifact)
    artifact.run([a, b, out])
    assert_close(out.float(), a.float() @ b.float(), max_abs=MAX_ABS, min_pcc=MIN_PCC)


def test_implicit_matmul_two_out_blocks_sums_in_l1():
    """examples/matmul_implicit.py with 2 output blocks per core: the accumulator's CB
    is reserved, summed into and pushed once per output block."""
    grid, block, k_blocks, out_blocks = (2, 2), 2, 4, 2
    kernel = implicit_matmul_kernel(grid, block, k_blocks, out_blocks)
    m, n, k = grid[0] * block * TILE * out_blocks, grid[1] * block * TILE, k_blocks * block * TILE
    a = random_bf16((m, k), -1.0, 1.0, seed=33)
    b = random_bf16((k, n), -1.0, 1.0, seed=34)
    out = torch.zeros(m, n, dtype=torch.bfloat16)
    artifact = kernel.compile(a, b, out)
    _assert_sums_in_l1(artifact)
    artifact.run([a, b, out])
    assert_close(out.float(), a.float() @ b.float(), max_abs=MAX_ABS, min_pcc=MIN_PCC)
