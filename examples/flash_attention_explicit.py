"""FlashAttention forward with hand-written data movement: the benchmark baseline of
examples/flash_attention.py (whose kernel leaves data movement to the compiler and
computes its causal mask itself), non-causal and causal.

softmax(scale · Q Kᵀ) V as one fused kernel per core.

The work units are (batch·head, Q chunk) pairs, dealt round-robin over the grid. For
each of its units a core's reader streams the Q chunk and then every K/V chunk it
needs through double-buffered CBs (the next chunk arrives while this one is used);
the compute thread runs the online softmax over them in a loop, carrying the running
row max m, row sum l and output accumulator acc; the writer stores acc / l. When every
grid row works on one head at a time, the row shares its K/V reads: column 0 reads each
K/V chunk from DRAM and multicasts it to the others (a semaphore handshake per chunk).

Causal attention skips the K/V chunks above the diagonal (the loop stops at a bound
computed from the Q chunk's index) and adds a 0 / −inf mask to the scores of the
chunks on it, in a second loop: the mask blocks are cut by the reader from one band
built on the host (`causal_mask_band`).

Run it through examples/flash_attention.py (`compile_flash_attention(...,
kernel="explicit")`), which holds the host side of both kernels.
"""

from __future__ import annotations

import functools

import torch
from ttlang import (
    Program,
    Semaphore,
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
def flash_attention_kernel(
    grid, q_chunk, k_chunk, head_dim, causal, fp32_dest_acc, kv_dtype="bfloat16"
):
    """The kernel for one grid, chunk size pair, head size, masking, DST mode and K/V
    device dtype (they fix its CB blocks, formats and compute configuration); cached,
    so its compilations are too."""
    qt, kt, dt = q_chunk // TILE, k_chunk // TILE, head_dim // TILE
    mask_block = (qt, kt) if causal else (1, 1)  # non-causal: an unused one-tile CB

    @pykernel_gen(
        grid=grid,
        block_factors=[(qt, dt), (kt, dt), (kt, dt), mask_block, (qt, dt)],
        fp32_dest_acc_en=fp32_dest_acc,
        dtypes={"k": kv_dtype, "v": kv_dtype},  # "bfloat8_b": K and V as tt-metal's SDPA keeps them
        math_approx_mode=True,  # approximate exp, as tt-metal's SDPA
    )
    def flash_attention(q, k, v, mask, out, seq_len: int = 0, scale: float = 1.0):
        q_acc, k_acc, v_acc = TensorAccessor(q), TensorAccessor(k), TensorAccessor(v)
        mask_acc, out_acc = TensorAccessor(mask), TensorAccessor(out)
        q_chunks, kv_chunks = seq_len // q_chunk, seq_len // k_chunk
        units, cores = q.shape[0] // q_chunk, grid[0] * grid[1]

        def chunk_of(unit):
            """The Q chunk (row block of q and out, over all heads) of a core's `unit`th
            unit. Units are dealt round-robin; causal rounds alternate direction, so a
            core's short rows of the triangle pair with long ones, as in tt-metal."""
            if not causal or units < 2 * cores:
                return unit
            deal = unit // cores
            backwards = (deal % 2) * (1 - deal // (units // cores))  # odd, complete rounds
            return unit + backwards * (cores - 1 - 2 * (unit % cores))

        # When a grid row works on one head at a time (its columns on consecutive Q
        # chunks), column 0 reads each K/V chunk from DRAM and multicasts it to the row.
        # Not with paired causal rounds: the row would go at its longest unit's pace.
        shared = grid[1] > 1 and q_chunks % grid[1] == 0 and (not causal or units < 2 * cores)

        def kv_range(chunk):
            """K/V chunks Q chunk `chunk` attends to: [0, diagonal) whole, [diagonal, end) masked."""
            if not causal:
                return kv_chunks, kv_chunks
            first_row = (chunk % q_chunks) * q_chunk
            return first_row // k_chunk, (first_row + q_chunk + k_chunk - 1) // k_chunk

        def kv_reads(unit):
            """K/V chunks the core receives for `unit`: its own, or if shared its row's
            last (causal: the longest) Q chunk's."""
            last = unit - unit % grid[1] + grid[1] - 1  # the unit of the row's last column
            return kv_range(chunk_of(last if shared else unit))[1]

        def online_softmax(q, k, v, m, l, acc, mask=None):
            s = q @ k.transpose()
            if mask is not None:
                s = s + mask
            m_new = maximum(m, s.rowmax())
            p = (s - m_new).exp()
            alpha = (m - m_new).exp()  # rescales what was summed under the old max
            return m_new, l * alpha + p.rowsum(), acc * alpha + p @ v

        @compute()
        def attention(q_cb, k_cb, v_cb, mask_cb, out_cb, ready: Semaphore, valid: Semaphore):
            for unit in range(core_index(0) * grid[1] + core_index(1), units, cores):
                diagonal, end = kv_range(chunk_of(unit))
                with q_cb.wait() as q_blk:
                    q_scaled = q_blk * scale
                    m = full((q_chunk, 1), NEG_INF)
                    l = zeros((q_chunk, 1))
                    acc = zeros((q_chunk, head_dim))
                    for _ in range(diagonal):
                        with k_cb.wait() as k_blk, v_cb.wait() as v_blk:
                            m, l, acc = online_softmax(q_scaled, k_blk, v_blk, m, l, acc)
                    if causal:
                        for _ in range(diagonal, end):
                            with (
                                k_cb.wait() as k_blk,
                                v_cb.wait() as v_blk,
                                mask_cb.wait() as mask_blk,
                            ):
                                m, l, acc = online_softmax(
                                    q_scaled, k_blk, v_blk, m, l, acc, mask_blk
                                )
                    for _ in range(end, kv_reads(unit)):  # the row's, past this chunk's end
                        with k_cb.wait() as k_blk, v_cb.wait() as v_blk:
                            pass
                with out_cb.reserve() as o:
                    o.store(acc / l)

        @datamovement()
        def reader(q_cb, k_cb, v_cb, mask_cb, out_cb, ready: Semaphore, valid: Semaphore):
            for unit in range(core_index(0) * grid[1] + core_index(1), units, cores):
                chunk = chunk_of(unit)
                diagonal, end = kv_range(chunk)
                kv_first = (chunk // q_chunks) * (seq_len // TILE)  # its head's first K/V tile row
                with q_cb.reserve() as blk:
                    dma(q_acc[chunk * qt, 0], blk).wait()
                for j in range(kv_reads(unit)):
                    with k_cb.reserve() as k_blk, v_cb.reserve() as v_blk:
                        if not shared or core_index(1) == 0:
                            k_read = dma(k_acc[kv_first + j * kt, 0], k_blk)
                            v_read = dma(v_acc[kv_first + j * kt, 0], v_blk)
                            k_read.wait()
                            v_read.wait()
                        if shared and core_index(1) == 0:
                            ready.wait(grid[1] - 1, reset=0)  # the row has reserved its blocks
                            row = (core_index(0), 1), (1, grid[1] - 1)
                            k_send = dma(k_blk, k_blk, core=row[0], mcast=row[1])
                            v_send = dma(v_blk, v_blk, core=row[0], mcast=row[1])
                            k_send.wait()
                            v_send.wait()
                            valid.set(1, core=row[0], mcast=row[1])
                        if shared and core_index(1) != 0:
                            ready.inc(1, core=(core_index(0), 0))
                            valid.wait(1, reset=0)
                    if causal and j >= diagonal and j < end:
                        with mask_cb.reserve() as blk:
                            dma(
                                mask_acc[0, kt - 1 + j * kt - (chunk % q_chunks) * qt],
                                blk,
                            ).wait()

        @datamovement()
        def writer(q_cb, k_cb, v_cb, mask_cb, out_cb, ready: Semaphore, valid: Semaphore):
            for unit in range(core_index(0) * grid[1] + core_index(1), units, cores):
                with out_cb.wait() as blk:
                    dma(blk, out_acc[chunk_of(unit) * qt, 0]).wait()

        return Program(attention, reader, writer)(q, k, v, mask, out)

    return flash_attention


def causal_mask_band(q_chunk: int, k_chunk: int) -> torch.Tensor:
    """The additive masks of all diagonal blocks as one band: the mask of Q chunk i and
    K chunk j is the block at column k_chunk − 32 + j·k_chunk − i·q_chunk, and
    band[r, c] is −inf where key c − (k_chunk − 32) lies past query r."""
    offset = k_chunk - TILE
    rows = torch.arange(q_chunk).unsqueeze(1)
    keys = torch.arange(offset + q_chunk - TILE + k_chunk).unsqueeze(0) - offset
    return (
        torch.zeros(rows.shape[0], keys.shape[1])
        .masked_fill(keys > rows, NEG_INF)
        .to(torch.bfloat16)
    )
