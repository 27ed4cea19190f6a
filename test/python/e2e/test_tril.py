"""`tril(x, diagonal, value)` end to end: DSL -> d2m.tril_mask + a generic reading its
band -> d2m-tril-masks (a kernel-local CB the reader thread fills once) -> where_tile
-> emulator, against torch.

Kernels are implicit (the compiler writes the reader and writer) on one core walking
two blocks, so the band, waited for once at the compute thread's start, serves every
block. A select moves values without arithmetic: `tril` alone must equal torch's
exactly, for diagonals below, on and above the main one (by whole tiles, and past the
block's corner) and for block shapes taller, wider and with a batch dim. Uses feeding
arithmetic (a softmax of scores masked with -inf, a matmul and a row sum of a block
masked with 0) compare with torch under bf16 tolerances stated per test.
"""

from __future__ import annotations

import math

import pytest
import torch
from ttlang import CircularBuffer, Program, compute, pykernel_gen, tril

BLOCKS = 2  # per core, along the rows


def _pcc(a: torch.Tensor, b: torch.Tensor) -> float:
    return torch.corrcoef(torch.stack([a.flatten(), b.flatten()]))[0, 1].item()


def _blockwise(x: torch.Tensor, rows: int, fn) -> torch.Tensor:
    """fn applied to each block of `rows` rows (the kernel's blocks), stacked back."""
    return torch.cat([fn(part) for part in x.split(rows, dim=-2)], dim=-2)


def _torch_tril(x: torch.Tensor, diagonal: int, value: float) -> torch.Tensor:
    keep = torch.ones(x.shape[-2:]).tril(diagonal).bool()
    return torch.where(keep, x, torch.tensor(value))


def tril_kernel(block: tuple[int, ...], diagonal: int, value: float, expr=None):
    """out block = expr(tril(x block)) (default the tril itself), over BLOCKS blocks of
    `block` elements stacked along the rows."""
    factors = [tuple(d // 32 if i >= len(block) - 2 else d for i, d in enumerate(block))] * 2

    @pykernel_gen(grid=(1, 1), block_factors=factors)
    def masked(x, out):
        @compute()
        def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for _ in range(BLOCKS):
                with x_cb.wait() as a, out_cb.reserve() as o:
                    t = tril(a, diagonal=diagonal, value=value)
                    o.store(expr(t) if expr is not None else t)

        return Program(apply)(x, out)

    return masked


def row_kernel(block: tuple[int, int], expr):
    """out block (1 tile wide; column 0 holds the values) = expr(x block), a row
    reduction, over BLOCKS blocks of `block` elements stacked along the rows."""

    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(block[0] // 32, block[1] // 32), (block[0] // 32, 1)],
        indexing_maps=[lambda i, j: (i, j), lambda i, j: (i, 0)],
        iterator_types=["parallel", "reduction"],
    )
    def rows(x, out):
        @compute()
        def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for _ in range(BLOCKS):
                with x_cb.wait() as a, out_cb.reserve() as o:
                    o.store(expr(a))

        return Program(apply)(x, out)

    return rows


def _stacked(block: tuple[int, ...]) -> tuple[int, ...]:
    return (*block[:-2], BLOCKS * block[-2], block[-1])


@pytest.mark.parametrize(
    "block, diagonal, value",
    [
        ((64, 96), 0, -math.inf),
        ((64, 96), 32, 0.0),
        ((96, 64), -32, 2.5),
        ((128, 256), 128, -math.inf),  # FlashAttention's odd diagonal chunk
        ((64, 64), -96, 0.0),  # past the corner: every element is `value`
        ((64, 64), 64, -math.inf),  # past the other corner: every element kept
        ((1, 64, 96), 0, -1.0),  # a batch dim
    ],
)
def test_tril_equals_torch(block, diagonal, value):
    generator = torch.Generator().manual_seed(7)
    x = torch.randn(_stacked(block), generator=generator).to(torch.bfloat16)
    out = torch.zeros_like(x)
    tril_kernel(block, diagonal, value)(x, out)
    expected = _blockwise(x.float(), block[-2], lambda p: _torch_tril(p, diagonal, value))
    assert torch.equal(out.float(), expected)


def test_masked_softmax():
    """softmax(tril(s, 32, -inf)) per row, the exp of every masked element 0. Tolerance:
    max-abs 2^-6 (bf16 probabilities, rounded at exp, sum and divide), PCC >= 0.999."""
    block = (64, 128)

    def softmax(t):
        p = (t - t.rowmax()).exp()
        return p / p.rowsum()

    x = torch.randn(_stacked(block), generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    out = torch.zeros_like(x)
    tril_kernel(block, 32, -math.inf, softmax)(x, out)
    expected = _blockwise(
        x.float(), block[-2], lambda p: torch.softmax(_torch_tril(p, 32, -math.inf), dim=-1)
    )
    assert (out.float()[expected == 0] == 0).all()
    assert (out.float() - expected).abs().max().item() <= 2**-6
    assert _pcc(out.float(), expected) >= 0.999


@pytest.mark.parametrize("diagonal", [0, -32])
def test_zero_masked_row_sum(diagonal):
    """tril(x, d, 0).rowsum(), stored in a 1-tile-wide block (column 0 holds the sums).
    Tolerance: max-abs 0.1 (sums of up to 96 bf16 values of magnitude ~1, each rounded
    to bf16's 8 bits: ~2^-8 relative of a sum up to ~10 in size), PCC >= 0.999."""
    block = (64, 96)
    row_sums = row_kernel(block, lambda a: tril(a, diagonal=diagonal).rowsum())

    x = torch.randn(_stacked(block), generator=torch.Generator().manual_seed(5)).to(torch.bfloat16)
    out = torch.zeros(BLOCKS * block[0], 32, dtype=torch.bfloat16)
    row_sums(x, out)
    expected = _blockwise(x.float(), block[0], lambda p: _torch_tril(p, diagonal, 0.0)).sum(-1)
    got = out.float()[:, 0]
    assert (got - expected).abs().max().item() <= 0.1
    assert _pcc(got, expected) >= 0.999


def test_zero_masked_matmul_and_masked_scores():
    """FlashAttention's two uses in one kernel: scores s = tril(q @ kᵀ, 64, -inf) (a tril
    on a matmul result: fused as its epilogue), stored; and p = tril(q, 0, 0) @ v, a
    zero-masked matmul A. Tolerances: s exact at the -inf positions and max-abs 0.125
    elsewhere (bf16 dot products of 64 terms of size ~1: |s| up to ~30, rounded to 8
    bits), PCC >= 0.999; p max-abs 0.125, PCC >= 0.999."""
    gen = torch.Generator().manual_seed(11)
    q, k, v = (torch.randn(BLOCKS * 64, 64, generator=gen).to(torch.bfloat16) for _ in range(3))

    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2)] * 5, num_outs=2)
    def both(q, k, v, s, p):
        @compute()
        def apply(
            q_cb: CircularBuffer,
            k_cb: CircularBuffer,
            v_cb: CircularBuffer,
            s_cb: CircularBuffer,
            p_cb: CircularBuffer,
        ):
            for _ in range(BLOCKS):
                with q_cb.wait() as qb, k_cb.wait() as kb, v_cb.wait() as vb:
                    with s_cb.reserve() as o:
                        o.store(tril(qb @ kb.transpose(), diagonal=-32, value=-math.inf))
                    with p_cb.reserve() as o:
                        o.store(tril(qb, diagonal=0) @ vb)

        return Program(apply)(q, k, v, s, p)

    s = torch.zeros(BLOCKS * 64, 64, dtype=torch.bfloat16)
    p = torch.zeros_like(s)
    both(q, k, v, s, p)
    qf, kf, vf = q.float(), k.float(), v.float()
    blocks = list(zip(qf.split(64), kf.split(64), vf.split(64)))
    expected_s = torch.cat([_torch_tril(a @ b.T, -32, -math.inf) for a, b, _ in blocks])
    expected_p = torch.cat([a.tril(0) @ c for a, _, c in blocks])
    masked = torch.isinf(expected_s)
    assert torch.equal(torch.isinf(s.float()), masked)
    assert (s.float()[~masked] - expected_s[~masked]).abs().max().item() <= 0.125
    assert _pcc(s.float()[~masked], expected_s[~masked]) >= 0.999
    assert (p.float() - expected_p).abs().max().item() <= 0.125
    assert _pcc(p.float(), expected_p) >= 0.999


@pytest.mark.parametrize("keys, diagonal", [(128, 0), (128, 32), (256, 128), (256, 64)])
def test_causal_attention_skips_masked_tiles(keys, diagonal):
    """softmax(tril(q kᵀ, d, -inf)) v / its row sums, one 128-query block: the compiler
    skips the score tiles above the diagonal in Q·Kᵀ, the row max, exp, the row sum and
    P·V (d2m-skip-masked-tiles marks them); a tile skipped one diagonal too far, or a
    reduction cut one tile short, changes the result by O(1). q is scaled by 1/8 (as
    attention's 1/sqrt(64)), so scores are of size ~1 and their bf16 rounding moves the
    exp by < 1%. Tolerances: max-abs 0.05 (bf16 probabilities, sums and outputs of size
    ~1), PCC >= 0.999."""
    queries, dim = 128, 64

    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(1, 4, 2), (1, keys // 32, 2), (1, keys // 32, 2), (1, 4, 2)],
        indexing_maps=[lambda b: (b, 0, 0)] * 4,  # one head, each tensor one block
        iterator_types=["parallel"],
    )
    def attention(q, k, v, out):
        @compute()
        def apply(q_cb: CircularBuffer, k_cb: CircularBuffer, v_cb: CircularBuffer, out_cb: CircularBuffer):
            with q_cb.wait() as qb, k_cb.wait() as kb, v_cb.wait() as vb, out_cb.reserve() as o:
                s = tril(qb @ kb.transpose(), diagonal=diagonal, value=-math.inf)
                p = (s - s.rowmax()).exp()
                o.store((p @ vb) / p.rowsum())

        return Program(apply)(q, k, v, out)

    gen = torch.Generator().manual_seed(13)
    q = (torch.randn(1, queries, dim, generator=gen) / 8).to(torch.bfloat16)  # scores of size ~1
    k, v = (torch.randn(1, keys, dim, generator=gen).to(torch.bfloat16) for _ in range(2))
    out = torch.zeros(1, queries, dim, dtype=torch.bfloat16)
    attention(q, k, v, out)
    scores = _torch_tril(q[0].float() @ k[0].float().T, diagonal, -math.inf)
    expected = (torch.softmax(scores, dim=-1) @ v[0].float()).unsqueeze(0)
    assert (out.float() - expected).abs().max().item() <= 0.05
    assert _pcc(out.float(), expected) >= 0.999
    marked = attention.compile(q, k, v, out).stages["d2m-skip-masked-tiles"]
    assert marked.count("#d2m.triangle<") >= 6  # Q·Kᵀ, tril, max, exp, sum, P·V


def test_zero_masked_max_is_not_skipped():
    """tril(x, 0, value=0).rowmax() of negative x: the masked zeros are the row maxima
    (0 is no identity of max), so the max must read every tile: exactly 0 in every row
    with a masked element, torch's max elsewhere (the last row of a square block)."""
    block = (64, 64)
    row_max = row_kernel(block, lambda a: tril(a, diagonal=0).rowmax())

    x = -torch.rand(_stacked(block), generator=torch.Generator().manual_seed(17)).to(torch.bfloat16) - 0.5
    out = torch.zeros(BLOCKS * block[0], 32, dtype=torch.bfloat16)
    row_max(x, out)
    expected = _blockwise(x.float(), block[0], lambda p: _torch_tril(p, 0, 0.0)).amax(-1)
    assert torch.equal(out.float()[:, 0], expected)
