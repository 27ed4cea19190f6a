"""FlashAttention forward: softmax(scale · Q Kᵀ [+ causal mask]) V in one fused kernel.

    python examples/flash_attention.py
"""

from __future__ import annotations

import functools
import math

import torch

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    full,
    maximum,
    pykernel_gen,
    zeros,
)

TILE = 32
NEG_INF = float("-inf")


@functools.cache
def flash_attention_kernel(grid, q_chunk, k_chunk, head_dim, causal, fp32_dest_acc):
    """The kernel for one choice of grid, chunk sizes, head size, masking and DST mode
    (those fix its CB blocks and compute configuration)."""
    qt, kt, dt = q_chunk // TILE, k_chunk // TILE, head_dim // TILE
    mask_block = (qt, kt) if causal else (1, 1)

    @pykernel_gen(
        grid=grid,
        block_factors=[(qt, dt), (kt, dt), (kt, dt), mask_block, (qt, dt)],
        fp32_dest_acc_en=fp32_dest_acc,
    )
    def flash_attention(q, k, v, mask, out, seq_len: int = 0, scale: float = 1.0):
        q_acc, k_acc, v_acc = TensorAccessor(q), TensorAccessor(k), TensorAccessor(v)
        mask_acc, out_acc = TensorAccessor(mask), TensorAccessor(out)
        q_chunks, kv_chunks = seq_len // q_chunk, seq_len // k_chunk
        units = q.shape[0] // q_chunk  # (batch·head, Q chunk) pairs, over all cores
        cores = grid[0] * grid[1]

        def kv_range(unit):
            """K/V chunks this Q chunk sees: [0, unmasked) whole, [unmasked, end) masked."""
            if not causal:
                return kv_chunks, kv_chunks
            first_row = (unit % q_chunks) * q_chunk
            return first_row // k_chunk, (first_row + q_chunk + k_chunk - 1) // k_chunk

        def online_softmax(q, k, v, m, l, acc, mask=None):
            s = (q @ k.transpose()) * scale
            if mask is not None:
                s = s + mask
            m_new = maximum(m, s.rowmax())
            p = (s - m_new).exp()
            alpha = (m - m_new).exp()
            return m_new, l * alpha + p.rowsum(), acc * alpha + p @ v

        @compute()
        def attention(q_cb, k_cb, v_cb, mask_cb, out_cb):
            for unit in range(core_index(0) * grid[1] + core_index(1), units, cores):
                unmasked, end = kv_range(unit)
                with q_cb.wait() as q_blk:
                    m = full((q_chunk, 1), NEG_INF)
                    l = zeros((q_chunk, 1))
                    acc = zeros((q_chunk, head_dim))
                    for _ in range(unmasked):
                        with k_cb.wait() as k_blk, v_cb.wait() as v_blk:
                            m, l, acc = online_softmax(q_blk, k_blk, v_blk, m, l, acc)
                    if causal:
                        for _ in range(unmasked, end):
                            with k_cb.wait() as k_blk, v_cb.wait() as v_blk, mask_cb.wait() as mask:
                                m, l, acc = online_softmax(q_blk, k_blk, v_blk, m, l, acc, mask)
                with out_cb.reserve() as o:
                    o.store(acc / l)

        @datamovement()
        def reader(q_cb, k_cb, v_cb, mask_cb, out_cb):
            for unit in range(core_index(0) * grid[1] + core_index(1), units, cores):
                unmasked, end = kv_range(unit)
                kv_row = (unit // q_chunks) * (seq_len // TILE)
                with q_cb.reserve() as blk:
                    dma(q_acc[unit * qt, 0], blk).wait()
                for j in range(end):
                    with k_cb.reserve() as blk:
                        dma(k_acc[kv_row + j * kt, 0], blk).wait()
                    with v_cb.reserve() as blk:
                        dma(v_acc[kv_row + j * kt, 0], blk).wait()
                if causal:
                    for j in range(unmasked, end):
                        with mask_cb.reserve() as blk:
                            dma(mask_acc[0, kt - 1 + j * kt - (unit % q_chunks) * qt], blk).wait()

        @datamovement()
        def writer(q_cb, k_cb, v_cb, mask_cb, out_cb):
            for unit in range(core_index(0) * grid[1] + core_index(1), units, cores):
                with out_cb.wait() as blk:
                    dma(blk, out_acc[unit * qt, 0]).wait()

        return Program(attention, reader, writer)(q, k, v, mask, out)

    return flash_attention


def causal_mask_band(q_chunk: int, k_chunk: int) -> torch.Tensor:
    """Additive masks of every diagonal block as one band: element (r, c) of block (i, j)
    is band[r, c + (k_chunk - 32) + j·k_chunk - i·q_chunk], −inf where the key's
    position j·k_chunk + c is past the query's i·q_chunk + r."""
    offset = k_chunk - TILE
    width = offset + q_chunk - TILE + k_chunk
    rows = torch.arange(q_chunk).unsqueeze(1)
    cols = torch.arange(width).unsqueeze(0) - offset
    band = torch.zeros(q_chunk, width)
    band[cols > rows] = NEG_INF
    return band.to(torch.bfloat16)


def flash_attention(
    q, k, v, *, causal=False, scale=None, q_chunk=None, k_chunk=None, grid=(8, 8), fp32_dest_acc=False
) -> torch.Tensor:
    batch, heads, seq_len, head_dim = q.shape
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    q_chunk = q_chunk or 64
    k_chunk = k_chunk or 64
    kernel = flash_attention_kernel(tuple(grid), q_chunk, k_chunk, head_dim, causal, fp32_dest_acc)
    rows = batch * heads * seq_len
    q2, k2, v2 = (t.reshape(rows, head_dim).contiguous() for t in (q, k, v))
    mask = causal_mask_band(q_chunk, k_chunk) if causal else torch.zeros(TILE, TILE, dtype=torch.bfloat16)
    out = torch.zeros(rows, head_dim, dtype=torch.bfloat16)
    kernel(q2, k2, v2, mask, out, seq_len=seq_len, scale=float(scale))
    return out.reshape(batch, heads, seq_len, head_dim)


def main() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 128, 64, dtype=torch.bfloat16) for _ in range(3))
    for causal in (False, True):
        out = flash_attention(q, k, v, causal=causal, grid=(2, 2))
        expected = torch.nn.functional.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), is_causal=causal
        )
        print(causal, (out.float() - expected).abs().max().item())


if __name__ == "__main__":
    main()
