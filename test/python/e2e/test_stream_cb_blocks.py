"""End-to-end test of ttkernel-stream-cb-blocks on the emulator against torch: the
implicit matmul (examples/matmul_implicit.py) with 4x4-tile output blocks, which the
compute kernel packs a DST section (a tile row of 4 tiles) at a time and the generated
writer writes a tile row at a time.

Besides the numbers (PCC 0.999 and max-abs 1.0 against torch: bf16 outputs of up to
~40, K = 192 summed in bf16 blocks, an ulp is 0.25 there), the test checks the
generated kernels (the compute kernel pushes the output block 4 pages at a time, the
writer waits for 4 first and then for each tile row) and that streaming changes no
bit of the output: the same kernel compiled without the pass gives the same tensor.
"""

from __future__ import annotations

import re

import torch
from e2e_kernels import assert_close

from examples.matmul_implicit import TILE, matmul_kernel
from ttlang.driver import DEFAULT_PIPELINE, compile_module

GRID, BLOCK, K_BLOCKS, OUT_BLOCKS = (2, 2), (4, 2, 4), 3, 2


def _operands(seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    bm, bk, bn = BLOCK
    m, k, n = GRID[0] * bm * OUT_BLOCKS * TILE, K_BLOCKS * bk * TILE, GRID[1] * bn * TILE
    a = torch.randn(m, k, generator=generator).bfloat16()
    b = torch.randn(k, n, generator=generator).bfloat16()
    return a, b, torch.zeros(m, n, dtype=torch.bfloat16)


def test_output_blocks_stream_a_tile_row_at_a_time():
    a, b, out = _operands(seed=3)
    kernel = matmul_kernel(GRID, BLOCK, K_BLOCKS, OUT_BLOCKS)
    artifact = kernel.compile(a, b, out)
    sources = {k.kind: k.source for k in artifact.program.kernels}
    assert re.findall(r"cb_push_back\(out_cb, [^)]*\)", sources["compute"]) == ["cb_push_back(out_cb, 4)"]
    waits = re.findall(r"cb_wait_front\(out_cb, ([^)]*)\)", sources["writer"])
    assert waits[0] == "4" and len(waits) == 2, waits
    artifact.run([a, b, out])
    assert_close(out.float(), a.float() @ b.float(), max_abs=1.0, min_pcc=0.999)

    unstreamed = [p for p in DEFAULT_PIPELINE if p != "ttkernel-stream-cb-blocks"]
    whole = compile_module(kernel.frontend_module(a, b, out), pipeline=tuple(unstreamed))
    assert "cb_push_back(out_cb, 16)" in next(k.source for k in whole.program.kernels if k.kind == "compute")
    out_whole = torch.zeros_like(out)
    whole.run([a, b, out_whole])
    assert torch.equal(out, out_whole)
