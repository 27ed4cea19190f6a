"""Several matmuls in one compute kernel (issue 5): each matmul reads its own CBs,
temporaries bound to compute-local CBs by d2m-memref-provenance, K >= 5 tiles and
non-square blocks (the shapes that miscompiled in the public stack), and an online-
softmax attention loop carrying its running max, sum and accumulator in CBs. Each
kernel runs on the emulator in bf16 and fp32 DST modes against torch."""

from __future__ import annotations

import re

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    datamovement,
    dma,
    full,
    maximum,
    pykernel_gen,
    zeros,
)

DST_MODES = pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])

# (A @ B) @ C @ D in tiles: A is M x K, B K x N, C N x P, D P x Q.
M, K, N, P, Q = 2, 5, 3, 2, 1


def _bf16(t: torch.Tensor) -> torch.Tensor:
    """`t` rounded to bf16, as a temporary in a CB is."""
    return t.bfloat16().float()


def chained_matmuls(fp32_dest: bool):
    """out = ((a @ b) @ c) @ d: three matmuls, two temporaries."""

    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(M, K), (K, N), (N, P), (P, Q), (M, Q)],
        fp32_dest_acc_en=fp32_dest,
    )
    def three_matmuls(a, b, c, d, out):
        a_acc, b_acc, c_acc, d_acc = (TensorAccessor(t) for t in (a, b, c, d))
        out_acc = TensorAccessor(out)

        @compute()
        def chain(
            a_cb: CircularBuffer, b_cb: CircularBuffer, c_cb: CircularBuffer,
            d_cb: CircularBuffer, out_cb: CircularBuffer,
        ):  # fmt: skip
            with (
                a_cb.wait() as x, b_cb.wait() as y, c_cb.wait() as z, d_cb.wait() as w,
                out_cb.reserve() as o,
            ):  # fmt: skip
                o.store(((x @ y) @ z) @ w)

        @datamovement()
        def reader(
            a_cb: CircularBuffer, b_cb: CircularBuffer, c_cb: CircularBuffer,
            d_cb: CircularBuffer, out_cb: CircularBuffer,
        ):  # fmt: skip
            with a_cb.reserve() as blk:
                dma(a_acc[0, 0], blk).wait()
            with b_cb.reserve() as blk:
                dma(b_acc[0, 0], blk).wait()
            with c_cb.reserve() as blk:
                dma(c_acc[0, 0], blk).wait()
            with d_cb.reserve() as blk:
                dma(d_acc[0, 0], blk).wait()

        @datamovement()
        def writer(
            a_cb: CircularBuffer, b_cb: CircularBuffer, c_cb: CircularBuffer,
            d_cb: CircularBuffer, out_cb: CircularBuffer,
        ):  # fmt: skip
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(chain, reader, writer)(a, b, c, d, out)

    return three_matmuls


@DST_MODES
def test_three_chained_matmuls(fp32_dest: bool):
    a = random_bf16((M * TILE, K * TILE), -0.5, 0.5, seed=50)
    b = random_bf16((K * TILE, N * TILE), -0.5, 0.5, seed=51)
    c = random_bf16((N * TILE, P * TILE), -0.5, 0.5, seed=52)
    d = random_bf16((P * TILE, Q * TILE), -0.5, 0.5, seed=53)
    out = torch.zeros(M * TILE, Q * TILE, dtype=torch.bfloat16)
    artifact = chained_matmuls(fp32_dest).compile(a, b, c, d, out)
    compute_source = artifact.sources["three_matmuls_compute"]
    # the three matmuls read CBs of one tile type (bf16 32x32) and nothing between them
    # configures the FPU: the first's matmul_init holds for all three (ttkernel-place-
    # inits' equal inits)
    assert compute_source.count("matmul_init(") == 1
    artifact.run([a, b, c, d, out])
    expected = _bf16(_bf16(a.float() @ b.float()) @ c.float()) @ d.float()
    # results up to ~25 (bf16 ulp 0.125 there); the K = 160, 96, 64 sums accumulate in
    # DST (bf16 in dst16 mode: measured max error 0.145, fp32: 0.062)
    assert_close(out, expected, max_abs=0.25, min_pcc=0.9999)


# Attention in tiles: Q is SQ x HEAD, K and V are (CHUNKS * SK) x HEAD.
SQ, HEAD, SK, CHUNKS = 2, 5, 3, 2
SCALE = 0.125


def attention(fp32_dest: bool):
    """softmax(q @ kᵀ * SCALE) @ v, streaming K/V chunks with the online softmax: the
    running row max `m`, row sum `l` and accumulator `acc` are loop-carried blocks, and
    each iteration runs two matmuls (q @ kᵀ and p @ v)."""

    @pykernel_gen(
        grid=(1, 1), block_factors=[(SQ, HEAD), (SK, HEAD), (SK, HEAD), (SQ, HEAD)],
        fp32_dest_acc_en=fp32_dest,
    )  # fmt: skip
    def online_attention(q, k, v, out):
        q_acc, k_acc, v_acc, o_acc = (TensorAccessor(t) for t in (q, k, v, out))

        @compute()
        def attend(
            q_cb: CircularBuffer, k_cb: CircularBuffer, v_cb: CircularBuffer, o_cb: CircularBuffer
        ):
            qb = q_cb.wait()
            m = full((SQ * TILE, 1), -1e30)
            l = zeros((SQ * TILE, 1))
            acc = zeros((SQ * TILE, HEAD * TILE))
            for _chunk in range(CHUNKS):
                with k_cb.wait() as kb, v_cb.wait() as vb:
                    s = (qb @ kb.transpose()) * SCALE
                    m_new = maximum(m, s.rowmax())
                    p = (s - m_new).exp()
                    correction = (m - m_new).exp()
                    l = l * correction + p.rowsum()
                    acc = acc * correction + p @ vb
                    m = m_new
            with o_cb.reserve() as o:
                o.store(acc / l)
            q_cb.pop()

        @datamovement()
        def reader(
            q_cb: CircularBuffer, k_cb: CircularBuffer, v_cb: CircularBuffer, o_cb: CircularBuffer
        ):
            with q_cb.reserve() as blk:
                dma(q_acc[0, 0], blk).wait()
            for chunk in range(CHUNKS):
                with k_cb.reserve() as blk:
                    dma(k_acc[chunk * SK, 0], blk).wait()
                with v_cb.reserve() as blk:
                    dma(v_acc[chunk * SK, 0], blk).wait()

        @datamovement()
        def writer(
            q_cb: CircularBuffer, k_cb: CircularBuffer, v_cb: CircularBuffer, o_cb: CircularBuffer
        ):
            with o_cb.wait() as blk:
                dma(blk, o_acc[0, 0]).wait()

        return Program(attend, reader, writer)(q, k, v, out)

    return online_attention


@DST_MODES
def test_online_attention_two_matmuls_per_iteration(fp32_dest: bool):
    q = random_bf16((SQ * TILE, HEAD * TILE), -1.0, 1.0, seed=60)
    k = random_bf16((CHUNKS * SK * TILE, HEAD * TILE), -1.0, 1.0, seed=61)
    v = random_bf16((CHUNKS * SK * TILE, HEAD * TILE), -1.0, 1.0, seed=62)
    out = torch.zeros(SQ * TILE, HEAD * TILE, dtype=torch.bfloat16)
    artifact = attention(fp32_dest).compile(q, k, v, out)
    # q @ kᵀ and p @ v are each initialised with their own operand CBs: (q, k), k's
    # tiles transposed by the unpacker (fused transpose), and (p, v), where p is a
    # temporary in a compute-local CB
    inits = re.findall(
        r"matmul_init\((\w+), (\w+), (\d)\)", artifact.sources["online_attention_compute"]
    )
    assert len(inits) == 2
    (q_in, k_in, q_k_transposed), (p_in, v_in, p_v_transposed) = inits
    assert (q_in, k_in, q_k_transposed) == ("q_cb", "k_cb", "1")
    assert (v_in, p_v_transposed) == ("v_cb", "0")
    assert p_in not in {"q_cb", "k_cb", "v_cb", "o_cb"}
    artifact.run([q, k, v, out])
    weights = torch.softmax(q.float() @ k.float().T * SCALE, dim=-1)
    expected = weights @ v.float()
    # outputs are weighted means of v in [-1, 1] (|out| < ~0.3); p, the running sums and
    # the accumulator are rounded to bf16 in their CBs (measured max error 0.0013)
    assert_close(out, expected, max_abs=0.01, min_pcc=0.9999)
