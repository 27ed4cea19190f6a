"""End-to-end tests of block views (`blk[:, a:b]`: tile rows of a block from cb.wait(),
a `d2m.block_view`), on the emulator against torch.

Each kernel reads q (one 64x64 block, 2x2 tiles) and chunks of k (and v) of 128x64
(4x2 tiles) through implicit operands, and uses only some tile rows of each chunk:
(a) a view as a matmul's A, (b) a view as the transposed B of `q @ kᵀ` (the
unpacker's transpose), (c) views in elementwise ops and a row reduction, stored as
they are (exact), and three views of a block with two batch indices (the offset
applies per batch), (d) a view as B in `acc += q @ k_viewᵀ` over a loop whose trip
count is a run-time value, (e) an online-softmax step (FlashAttention's) over views
of k and v chunks. Every expected value reads other rows than the first ones, so a
view read at offset 0 would fail.

Tolerances: inputs uniform in [-1, 1]. (a), (b), (d): sums of 64 (d: 3 x 64) bf16
products, outputs up to 11.1 (d: 18.8; bf16 ulp 0.0625 / 0.125 there), rounded to
bf16 (d: also the packer's L1 accumulation, in bf16); measured max-abs 0.037 / 0.037 /
0.084, PCC 0.999995; asserted two ulps, max-abs 0.125 (a, b) and 0.25 (d), PCC
0.9999. (c): exp(k * q) - rowmax(k), |values| up to 1.7, a few bf16 roundings (ulp
0.0078 between 1 and 2); measured max-abs 0.013. Two-batch views: top² + rows 2-3 -
exp(rows 1-2) in [-3.7, 2.4] (ulp 0.0156 between 2 and 4); measured max-abs 0.016.
Both asserted max-abs 0.0625, PCC 0.9999. (e): softmax-weighted means of v in
[-1, 1] (|out| up to 0.83), after bf16 exp and 3 rescalings; measured max-abs 0.016,
PCC 0.99995; asserted max-abs 0.03125, PCC 0.999.
"""

from __future__ import annotations

import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import Program, compute, core_index, full, maximum, pykernel_gen, zeros

Q_TILES, K_TILES, D_TILES = 2, 4, 2
ROWS, KEYS, DIM = Q_TILES * TILE, K_TILES * TILE, D_TILES * TILE
NEG_INF = float("-inf")


def by_query(i, h, j):
    return (h, i, 0)


def by_key(i, h, j):
    return (h, j, 0)


def chunked(*maps):
    """Options for q (one block) and k/v in chunks along loop dim j, out like q."""
    blocks = {by_query: (1, Q_TILES, D_TILES), by_key: (1, K_TILES, D_TILES)}
    return dict(
        grid=(1, 1),
        block_factors=[blocks[m] for m in maps],
        indexing_maps=list(maps),
        iterator_types=["parallel", "parallel", "reduction"],
    )


def one_step(expression):
    """out = expression(q_block, k_block), one k chunk."""

    @pykernel_gen(**chunked(by_query, by_key, by_query))
    def step(q, k, out):
        @compute()
        def body(q_cb, k_cb, out_cb):
            with q_cb.wait() as qb, k_cb.wait() as kb, out_cb.reserve() as o:
                o.store(expression(qb, kb))

        return Program(body)(q, k, out)

    return step


def inputs(chunks: int = 1, seed: int = 5):
    q = random_bf16((1, ROWS, DIM), -1.0, 1.0, seed=seed)
    k = random_bf16((1, chunks * KEYS, DIM), -1.0, 1.0, seed=seed + 1)
    v = random_bf16((1, chunks * KEYS, DIM), -1.0, 1.0, seed=seed + 2)
    return q, k, v


def tile_rows(x: torch.Tensor, start: int, stop: int) -> torch.Tensor:
    """Tile rows start..stop-1 of every KEYS-row chunk of x, as float."""
    return torch.cat([c[:, start * TILE : stop * TILE] for c in x.float().split(KEYS, dim=1)], dim=1)


def run_one_step(expression):
    q, k, _ = inputs()
    out = torch.zeros(1, ROWS, DIM, dtype=torch.bfloat16)
    one_step(expression)(q, k, out)
    return q.float(), k.float(), out.float()


def test_view_as_matmul_a():
    q, k, out = run_one_step(lambda qb, kb: kb[:, 2:4] @ qb)
    assert_close(out, k[:, 2 * TILE : 4 * TILE] @ q, max_abs=0.125, min_pcc=0.9999)


def test_view_as_transposed_matmul_b():
    q, k, out = run_one_step(lambda qb, kb: qb @ kb[:, 1:3].transpose())
    assert_close(out, q @ k[:, TILE : 3 * TILE].transpose(1, 2), max_abs=0.125, min_pcc=0.9999)


def test_view_stored():
    _, k, out = run_one_step(lambda qb, kb: kb[:, 2:4])
    assert torch.equal(out, k[:, 2 * TILE : 4 * TILE])  # a copy: exact


def test_view_in_elementwise_and_reduction():
    q, k, out = run_one_step(lambda qb, kb: (kb[:, 1:3] * qb).exp() - kb[:, 2:4].rowmax())
    first, second = k[:, TILE : 3 * TILE], k[:, 2 * TILE : 4 * TILE]
    expected = (first * q).exp() - second.amax(dim=-1, keepdim=True)
    assert_close(out, expected, max_abs=0.0625, min_pcc=0.9999)


def test_three_views_of_a_two_batch_block():
    """Views of one block with two batch indices: each batch's rows are their own run
    of tiles (the offset applies per batch); the same view read twice, and two views
    that overlap (rows 0-1 and 1-2)."""

    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(2, K_TILES, D_TILES), (2, Q_TILES, D_TILES)],
        indexing_maps=[by_key, by_query],
        iterator_types=["parallel", "parallel", "reduction"],
    )
    def views(x, out):
        @compute()
        def body(x_cb, out_cb):
            with x_cb.wait() as xb, out_cb.reserve() as o:
                top = xb[:, 0:2]
                o.store(top * top + xb[:, 2:4] - xb[:, 1:3].exp())

        return Program(body)(x, out)

    x = random_bf16((2, KEYS, DIM), -1.0, 1.0, seed=11)
    out = torch.zeros(2, ROWS, DIM, dtype=torch.bfloat16)
    views(x, out)
    rows = [x.float()[:, r * TILE : (r + 2) * TILE] for r in range(3)]
    assert_close(out.float(), rows[0] ** 2 + rows[2] - rows[1].exp(), max_abs=0.0625, min_pcc=0.9999)


def test_view_in_a_loop_with_a_runtime_trip_count():
    chunks = 3

    @pykernel_gen(**chunked(by_query, by_key, by_query))
    def scores_sum(q, k, out):
        @compute()
        def body(q_cb, k_cb, out_cb):
            with q_cb.wait() as qb:
                acc = zeros((1, ROWS, ROWS))
                for _ in range(core_index(0) + chunks):  # a run-time count (core 0: 3)
                    with k_cb.wait() as kb:
                        acc = acc + qb @ kb[:, 2:4].transpose()
            with out_cb.reserve() as o:
                o.store(acc)

        return Program(body)(q, k, out)

    q, k, _ = inputs(chunks)
    out = torch.zeros(1, ROWS, ROWS, dtype=torch.bfloat16)
    scores_sum(q, k, out)
    expected = sum(
        q.float() @ c.transpose(1, 2) for c in tile_rows(k, 2, 4).split(ROWS, dim=1)
    )
    assert_close(out.float(), expected, max_abs=0.25, min_pcc=0.9999)


def test_online_softmax_over_views():
    """FlashAttention's step over tile rows 1 and 2 (keys 32..95) of each k/v chunk."""
    chunks, first, stop = 3, 1, 3

    @pykernel_gen(**chunked(by_query, by_key, by_key, by_query))
    def attention(q, k, v, out):
        @compute()
        def body(q_cb, k_cb, v_cb, out_cb):
            with q_cb.wait() as qb:
                m = full((1, ROWS, 1), NEG_INF)
                l = zeros((1, ROWS, 1))
                acc = zeros((1, ROWS, DIM))
                for _ in range(chunks):
                    with k_cb.wait() as kb, v_cb.wait() as vb:
                        s = qb @ kb[:, first:stop].transpose()
                        m_new = maximum(m, s.rowmax())
                        p = (s - m_new).exp()
                        alpha = (m - m_new).exp()
                        m, l, acc = m_new, l * alpha + p.rowsum(), acc * alpha + p @ vb[:, first:stop]
            with out_cb.reserve() as o:
                o.store(acc / l)

        return Program(body)(q, k, v, out)

    q, k, v = inputs(chunks)
    out = torch.zeros(1, ROWS, DIM, dtype=torch.bfloat16)
    attention(q, k, v, out)
    keys, values = tile_rows(k, first, stop), tile_rows(v, first, stop)
    expected = torch.softmax(q.float() @ keys.transpose(1, 2), dim=-1) @ values
    assert_close(out.float(), expected, max_abs=0.03125, min_pcc=0.999)
