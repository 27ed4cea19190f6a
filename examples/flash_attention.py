"""FlashAttention forward, softmax(scale · Q Kᵀ) V, as one fused kernel per core.

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

    python examples/flash_attention.py
"""

from __future__ import annotations

import functools
import math
import re
import time
from dataclasses import dataclass

import torch
from ttlang import (
    Program,
    Semaphore,
    TensorAccessor,
    TensorSpec,
    compute,
    core_index,
    datamovement,
    dma,
    full,
    maximum,
    pykernel_gen,
    zeros,
)
from ttlang.dsl.diagnostics import KernelError
from ttlang.device import load_device

TILE = 32
NEG_INF = float("-inf")


@functools.cache
def flash_attention_kernel(grid, q_chunk, k_chunk, head_dim, causal, fp32_dest_acc, kv_dtype="bfloat16"):
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


# ------------------------------------------------------------------ host side

DEVICE_GRID = load_device().grid.compute_grid
"""The cores (rows, cols) the n150 gives kernels (its device description)."""
N150_CORES = 64
PEAK_FLOP_PER_CYCLE = {"LoFi": 4096, "HiFi2": 2048, "HiFi3": 1365, "HiFi4": 1024}
"""Per core (shared/reference/tensix.md: 8x16 x 16x16 per cycle per fidelity phase)."""
CHUNK_CANDIDATES = (256, 128, 64, 32)


@dataclass
class FlashAttention:
    """One compiled FlashAttention: the artifact and the choices it was built with."""

    shape: tuple[int, int, int, int]  # (batch, heads, seq_len, head_dim)
    causal: bool
    scale: float
    q_chunk: int
    k_chunk: int
    grid: tuple[int, int]
    artifact: object  # ttlang.driver.Artifact
    compile_seconds: float  # Python -> C++ (0 when it came from the cache)

    @property
    def flops(self) -> int:
        """4·B·H·S²·D (two matmuls), halved when causal: the work attention needs, not
        what the kernel spends on masked-out scores."""
        batch, heads, seq_len, head_dim = self.shape
        return 4 * batch * heads * seq_len * seq_len * head_dim // (2 if self.causal else 1)

    def run(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        batch, heads, seq_len, head_dim = self.shape
        rows = batch * heads * seq_len
        q2, k2, v2 = (t.to(torch.bfloat16).reshape(rows, head_dim).contiguous() for t in (q, k, v))
        out = torch.zeros(rows, head_dim, dtype=torch.bfloat16)
        self.artifact.run([q2, k2, v2, _mask(self.causal, self.q_chunk, self.k_chunk), out])
        return out.reshape(self.shape)

    def perf_summary(self) -> str:
        """Modeled time of the last run, its TFLOP/s and share of the n150 8x8 peak."""
        report = self.artifact.perf()
        seconds = report.cycles / report.clock_hz
        peak = N150_CORES * PEAK_FLOP_PER_CYCLE[report.math_fidelity] * report.clock_hz
        tflops = self.flops / seconds / 1e12
        return (
            f"{report.cycles} cycles = {seconds * 1e6:.1f} us at 1 GHz, {tflops:.2f} TFLOP/s = "
            f"{100e12 * tflops / peak:.1f}% of the n150 8x8 {report.math_fidelity} peak "
            f"({peak / 1e12:.0f} TFLOP/s)"
        )


def _mask(causal: bool, q_chunk: int, k_chunk: int) -> torch.Tensor:
    if causal:
        return causal_mask_band(q_chunk, k_chunk)
    return torch.zeros(TILE, TILE, dtype=torch.bfloat16)


def compile_flash_attention(
    shape,
    *,
    causal=False,
    scale=None,
    q_chunk=None,
    k_chunk=None,
    grid=(8, 8),
    fp32_dest_acc=False,
    kv_dtype="bfloat16",
) -> FlashAttention:
    """Compiles FlashAttention for q, k, v of `shape` [B, H, S, D]. An explicit chunk
    size that cannot work raises ValueError. Chunk sizes left as None follow what the
    cost model rewards (bench/flash_attention.py): the largest Q chunk that gives every
    core a unit (causal: two, a short and a long row of the triangle, if Q chunks
    stay >= 64 rows), and the largest K chunk that fits L1 (causal: 128 or the Q
    chunk, whichever is larger, as wider diagonal blocks waste masked work).
    `kv_dtype="bfloat8_b"` stores K and V as bfp8_b, as tt-metal's SDPA does: half the
    bytes in DRAM, L1 and on the NoC, at bfp8_b's precision (docs/dsl.md)."""
    batch, heads, seq_len, head_dim = shape
    grid = tuple(grid)
    _check_shape(shape, grid)
    scale = 1.0 / math.sqrt(head_dim) if scale is None else float(scale)
    cores = grid[0] * grid[1]

    def units(q_size: int) -> int:
        return batch * heads * (seq_len // q_size)

    q_options = _chunk_options("q_chunk", q_chunk, seq_len)
    if q_chunk is None:
        pairs = [c for c in q_options if causal and c >= 64 and units(c) >= 2 * cores]
        busy = [c for c in q_options if units(c) >= cores]
        q_options = list(dict.fromkeys(pairs + busy + q_options))
    k_options = _chunk_options("k_chunk", k_chunk, seq_len)
    failures = []
    for q_size in q_options:
        if causal and k_chunk is None:
            diagonal_width = max(q_size, 128)
            k_options = sorted(k_options, key=lambda c: (c > diagonal_width, -c))
        for k_size in k_options:
            kernel = flash_attention_kernel(grid, q_size, k_size, head_dim, causal, fp32_dest_acc, kv_dtype)
            start = time.perf_counter()
            specs = _specs(shape, causal, q_size, k_size)
            try:
                artifact = kernel.compile(*specs, seq_len=seq_len, scale=scale)
            except KernelError as error:  # program assembly's L1 budget check
                needed = re.search(r"circular buffers need (\d+) KiB of L1", str(error))
                if needed is None:
                    raise
                failures.append(
                    f"q_chunk={q_size}, k_chunk={k_size}: needs {needed.group(1)} KiB of CBs, "
                    f"a core has {load_device().l1.cb_budget_bytes // 1024} KiB of L1 for them"
                )
                continue
            seconds = time.perf_counter() - start
            return FlashAttention(shape, causal, scale, q_size, k_size, grid, artifact, seconds)
    raise ValueError("no chunk sizes fit a core: " + "; ".join(failures))


def flash_attention(
    q,
    k,
    v,
    *,
    causal=False,
    scale=None,
    q_chunk=None,
    k_chunk=None,
    grid=(8, 8),
    fp32_dest_acc=False,
    kv_dtype="bfloat16",
) -> torch.Tensor:
    """softmax(scale · q kᵀ [+ causal mask]) v for q, k, v of shape [B, H, S, D] (bf16; S
    and D multiples of 32), on the emulator. scale defaults to 1/sqrt(D)."""
    if not (q.shape == k.shape == v.shape):
        raise ValueError(
            f"q, k and v must have one shape, got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        )
    compiled = compile_flash_attention(
        tuple(q.shape),
        causal=causal,
        scale=scale,
        q_chunk=q_chunk,
        k_chunk=k_chunk,
        grid=grid,
        fp32_dest_acc=fp32_dest_acc,
        kv_dtype=kv_dtype,
    )
    return compiled.run(q, k, v)


def _check_shape(shape, grid) -> None:
    if len(shape) != 4:
        raise ValueError(f"q, k, v are [batch, heads, seq_len, head_dim], got shape {tuple(shape)}")
    if shape[2] % TILE or shape[3] % TILE:
        raise ValueError(
            f"seq_len and head_dim must be multiples of {TILE}, got {shape[2]} and {shape[3]}"
        )
    rows, cols = grid
    if not (1 <= rows <= DEVICE_GRID[0] and 1 <= cols <= DEVICE_GRID[1]):
        raise ValueError(
            f"grid {grid} does not fit the {DEVICE_GRID[0]}x{DEVICE_GRID[1]} compute grid"
        )


def _chunk_options(name: str, chunk: int | None, seq_len: int) -> list[int]:
    if chunk is None:
        return [c for c in CHUNK_CANDIDATES if seq_len % c == 0]
    if chunk <= 0 or chunk % TILE or seq_len % chunk:
        raise ValueError(
            f"{name}={chunk} must be a positive multiple of {TILE} dividing seq_len={seq_len}"
        )
    return [chunk]


def _specs(shape, causal: bool, q_chunk: int, k_chunk: int) -> list[TensorSpec]:
    batch, heads, seq_len, head_dim = shape
    rows = batch * heads * seq_len
    mask_shape = tuple(_mask(causal, q_chunk, k_chunk).shape)
    return [TensorSpec((rows, head_dim))] * 3 + [
        TensorSpec(mask_shape),
        TensorSpec((rows, head_dim)),
    ]


def main() -> None:
    shape = (1, 8, 2048, 128)
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(shape, generator=generator).to(torch.bfloat16) for _ in range(3))
    for causal in (False, True):
        compiled = compile_flash_attention(shape, causal=causal)
        out = compiled.run(q, k, v).float()
        expected = torch.nn.functional.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), is_causal=causal
        )
        pcc = torch.corrcoef(torch.stack([out.flatten(), expected.flatten()]))[0, 1].item()
        error = (out - expected).abs().max().item()
        print(
            f"FlashAttention {'causal' if causal else 'non-causal'} {list(shape)}, "
            f"q_chunk {compiled.q_chunk}, k_chunk {compiled.k_chunk}, grid "
            f"{compiled.grid[0]}x{compiled.grid[1]}: PCC {pcc:.6f}, max abs error {error:.4f} "
            f"vs torch SDPA\n  modeled: {compiled.perf_summary()}"
        )


if __name__ == "__main__":
    main()
