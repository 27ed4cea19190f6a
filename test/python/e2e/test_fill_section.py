"""End-to-end test of d2m-lower-to-loops' fill sections on the emulator against torch:
adjacent fill generics (a loop's carried blocks set to constants before it, as
FlashAttention's m = -inf, l = 0, acc = 0 per Q chunk) share one DST section, each
distinct value filled once into a DST tile of its own and every block packed from its
value's tile.

The kernel: m = full(-inf), s = zeros, c = full(0.5), then over 3 chunks of x:
m = maximum(m, x), s = s + x, c = c * x; out = m + s + c. The test checks the lowering
(the compute kernel fills -inf and 0.5 into tiles 1 and 2 of one section, the zero
tile left as DST starts, and packs the three carried blocks from them) so it cannot
pass by one section per fill. x uniform in [-1, 1]: m exact, |s| below 3, |c| below
0.5, |out| up to 4.03 here (bf16 ulp 2^-5 from 4 to 8), rounded once per op. Measured
against float32 torch: max-abs 0.026, PCC 0.999995; asserted: max-abs 2^-4 (two ulps
at the top of the range), PCC 0.9999.
"""

from __future__ import annotations

import re

import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import Program, compute, full, maximum, pykernel_gen, zeros

ROWS, COLS, CHUNKS = 1, 2, 3  # tiles of a chunk, chunks
SHAPE = (ROWS * TILE, COLS * TILE)


@pykernel_gen(
    grid=(1, 1),
    block_factors=[(ROWS, COLS), (ROWS, COLS)],
    indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (m, n)],
    iterator_types=["parallel", "parallel", "reduction"],
)
def running_stats(x, out):
    @compute()
    def stats(x_cb, o_cb):
        m = full(SHAPE, float("-inf"))
        s = zeros(SHAPE)
        c = full(SHAPE, 0.5)
        for _chunk in range(CHUNKS):
            with x_cb.wait() as xb:
                m = maximum(m, xb)
                s = s + xb
                c = c * xb
        with o_cb.reserve() as o:
            o.store(m + s + c)

    return Program(stats)(x, out)


def _first_section(source: str) -> str:
    start = source.index("tile_regs_acquire();")
    return source[start : source.index("tile_regs_release();", start)]


def test_adjacent_fills_share_a_section():
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=23)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    artifact = running_stats.compile(x, out)
    source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    section = _first_section(source)
    fills = re.findall(r"fill_tile\((\w+), (.*)\);", section)
    assert fills == [("1", "-__builtin_inff()"), ("2", "0.5f")], section
    assert {tile for tile, _cb in re.findall(r"pack_tile<true>\((\w+), (\w+),", section)} == {
        "0", "1", "2"
    }, section
    artifact.run([x, out])
    chunks = x.float().split(COLS * TILE, dim=1)
    m = torch.stack(chunks).amax(dim=0)
    c = 0.5 * torch.stack(chunks).prod(dim=0)
    assert_close(out.float(), m + sum(chunks) + c, max_abs=2**-4, min_pcc=0.9999)
