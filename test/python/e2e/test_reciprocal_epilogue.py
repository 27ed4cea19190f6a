"""End-to-end test of d2m-reciprocal-divisor's epilogue form on the emulator against
torch: `(a @ b) / rowsum(c)`, the division fused into the matmul as its epilogue (on
the accumulator in DST). The pass takes `1 / rowsum(c)` once per tile row, broadcast
into full tiles, and the epilogue multiplies DST by that tile on the FPU
(`mul_reuse_dest_tiles`) instead of dividing every output tile on the SFPU
(`div_binary_tile` of two DST tiles, the divisor's tile broadcast into DST first).

Inputs: a, b uniform in [-1, 1] (64 x 64), c uniform in [0.5, 1.5] (row sums ~64).
Outputs reach ~0.13 (a bf16 ulp of 0.001 there); measured max-abs 0.0016 with and
without the pass (the reciprocal is rounded to bf16 once more than the division).
Asserted: max-abs 0.003 (three ulps of the largest output), PCC 0.9999. (Modeled
cycles, not asserted: 3,251 against 3,833 with the SFPU division.) The test also checks the generated compute kernel (the FPU
multiply there, no SFPU division) and the same kernel compiled without the pass (the
SFPU division there, the same tolerances).
"""

from __future__ import annotations

import torch
from e2e_kernels import assert_close, random_bf16

from ttlang import Program, compute, pykernel_gen
from ttlang.driver import DEFAULT_PIPELINE, compile_module

TILES = 2  # per side of every block


@pykernel_gen(
    grid=(1, 1),
    block_factors=[(TILES, TILES)] * 4,
    indexing_maps=[
        lambda m, n, k: (m, k),
        lambda m, n, k: (k, n),
        lambda m, n, k: (m, n),
        lambda m, n, k: (m, n),
    ],
    iterator_types=["parallel", "parallel", "reduction"],
)
def normalized_matmul(a, b, c, out):
    @compute()
    def mm(a_cb, b_cb, c_cb, out_cb):
        with a_cb.wait() as x, b_cb.wait() as y, c_cb.wait() as z, out_cb.reserve() as o:
            o.store((x @ y) / z.rowsum())

    return Program(mm)(a, b, c, out)


def test_matmul_divided_by_row_sums_multiplies_by_reciprocals_on_the_fpu():
    side = TILES * 32
    a = random_bf16((side, side), -1.0, 1.0, seed=11)
    b = random_bf16((side, side), -1.0, 1.0, seed=12)
    c = random_bf16((side, side), 0.5, 1.5, seed=13)
    out = torch.zeros(side, side, dtype=torch.bfloat16)
    artifact = normalized_matmul.compile(a, b, c, out)
    compute_source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    assert "mul_reuse_dest_tiles" in compute_source and "div_binary_tile" not in compute_source
    artifact.run([a, b, c, out])
    expected = (a.float() @ b.float()) / c.float().sum(dim=1, keepdim=True)
    assert_close(out.float(), expected, max_abs=0.003, min_pcc=0.9999)

    divided = [p for p in DEFAULT_PIPELINE if p != "d2m-reciprocal-divisor"]
    sfpu = compile_module(normalized_matmul.frontend_module(a, b, c, out), pipeline=tuple(divided))
    assert "div_binary_tile" in next(k.source for k in sfpu.program.kernels if k.kind == "compute")
    out_sfpu = torch.zeros_like(out)
    sfpu.run([a, b, c, out_sfpu])
    assert_close(out_sfpu.float(), expected, max_abs=0.003, min_pcc=0.9999)
