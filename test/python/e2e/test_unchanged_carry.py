"""End-to-end tests of d2m-bufferize on blocks a loop carries unchanged or swaps, on the
emulator against torch.

Unchanged: `scale` is assigned in the chunk loop only under a compile-time-false
condition, so the loop yields it as it came in (it once crashed d2m-bufferize). It is
read inside the loop (`acc = acc + exp(x) * scale`) and after it (`out = acc + scale`).
`scale` is either computed before the loop (`exp(y)`, a temporary) or y's block itself
(a CB's block, which d2m-bufferize copies once after the loop: y's CB releases it
before `out` is computed).

Tolerances: x, y uniform in [-1, 1], so exp(x) * exp(y) in [0.14, 7.4] and out below 25
(bf16 ulp 0.125 between 16 and 32), rounded to bf16 a few times per chunk. Measured
against float32 torch: max-abs 0.11 (scale = exp(y), out up to 18.4) and 0.038
(scale = y), PCC 0.99998 and 0.999996; asserted: max-abs 0.25 (two ulps at the top of
the range), PCC 0.9999.

Swapped (`a, b = b, a` each chunk, once a crash in d2m-bufferize): acc += exp(x) * a
with a = exp(y) and b = 1 trading places, so odd chunks are weighted by 1; out = acc +
a - b. out up to 12.4; the same bounds hold (measured: max-abs 0.10, PCC 0.99996).
"""

from __future__ import annotations

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import Program, compute, full, pykernel_gen, zeros

ROWS, COLS, CHUNKS = 1, 2, 3  # tiles of a chunk, chunks
MAX_ABS = 0.25
MIN_PCC = 0.9999
CHUNKED = dict(  # x in chunks along k; y and out one block
    grid=(1, 1),
    block_factors=[(ROWS, COLS), (ROWS, COLS), (ROWS, COLS)],
    indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (m, n), lambda m, n, k: (m, n)],
    iterator_types=["parallel", "parallel", "reduction"],
)
UPDATE_SCALE = False  # a compile-time condition: the loop never assigns `scale`


def scaled_exp_sum(scale_is_exp: bool):
    """scale = exp(y) or y; acc = 0; for each chunk x: acc += exp(x) * scale (and, never,
    scale += x); out = acc + scale."""

    @pykernel_gen(**CHUNKED)
    def exp_sum(x, y, out):
        @compute()
        def accumulate(x_cb, y_cb, o_cb):
            acc = zeros((ROWS * TILE, COLS * TILE))
            with y_cb.wait() as yb:
                scale = yb.exp() if scale_is_exp else yb
                for _chunk in range(CHUNKS):
                    with x_cb.wait() as xb:
                        acc = acc + xb.exp() * scale
                        if UPDATE_SCALE:
                            scale = scale + xb
            with o_cb.reserve() as o:
                o.store(acc + scale)

        return Program(accumulate)(x, y, out)

    return exp_sum


@pytest.mark.parametrize("scale_is_exp", [True, False], ids=["temporary", "cb_block"])
def test_unchanged_carried_block(scale_is_exp: bool):
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=17)
    y = random_bf16((ROWS * TILE, COLS * TILE), -1.0, 1.0, seed=18)
    out = torch.zeros(ROWS * TILE, COLS * TILE, dtype=torch.bfloat16)
    scaled_exp_sum(scale_is_exp)(x, y, out)
    scale = y.float().exp() if scale_is_exp else y.float()
    expected = torch.zeros(ROWS * TILE, COLS * TILE)
    for chunk in x.float().split(COLS * TILE, dim=1):
        expected = expected + chunk.exp() * scale
    assert_close(out.float(), expected + scale, max_abs=MAX_ABS, min_pcc=MIN_PCC)


@pykernel_gen(**CHUNKED)
def swapped_weights(x, y, out):
    """a = exp(y), b = 1; for each chunk x: acc += exp(x) * a, then a, b = b, a."""

    @compute()
    def accumulate(x_cb, y_cb, o_cb):
        acc = zeros((ROWS * TILE, COLS * TILE))
        b = full((ROWS * TILE, COLS * TILE), 1.0)
        with y_cb.wait() as yb:
            a = yb.exp()
            for _chunk in range(CHUNKS):
                with x_cb.wait() as xb:
                    acc = acc + xb.exp() * a
                    a, b = b, a
        with o_cb.reserve() as o:
            o.store(acc + a - b)

    return Program(accumulate)(x, y, out)


def test_swapped_carried_blocks():
    x = random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=19)
    y = random_bf16((ROWS * TILE, COLS * TILE), -1.0, 1.0, seed=20)
    out = torch.zeros(ROWS * TILE, COLS * TILE, dtype=torch.bfloat16)
    swapped_weights(x, y, out)
    a, b = y.float().exp(), torch.ones(ROWS * TILE, COLS * TILE)
    expected = torch.zeros(ROWS * TILE, COLS * TILE)
    for chunk in x.float().split(COLS * TILE, dim=1):
        expected = expected + chunk.exp() * a
        a, b = b, a
    assert_close(out.float(), expected + a - b, max_abs=MAX_ABS, min_pcc=MIN_PCC)
