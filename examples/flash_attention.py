"""FlashAttention forward, softmax(scale · Q Kᵀ) V, as one fused kernel per core, written
on implicit operands: the kernel is its compute thread and its grid mapping; the
compiler generates the data movement (docs/dsl.md, "Implicit operands").

q, k, v and out are [batch·heads, seq_len, head_dim]; the loop dims are (i, h, j):
Q chunk, head, K/V chunk. Grid rows split the Q chunks, grid columns the heads, so
core (y, x) owns a range of Q chunks and of heads. The generated reader streams each
Q chunk and then every K/V chunk of its head through CBs (the next chunk arrives
while this one is used); since k and v do not depend on the Q chunk, every core of a
grid column reads the same K/V chunks: one core of the column (column x's row x, a
diagonal; causal: row 0, below) reads them from DRAM and multicasts them down the
column (the senders sit in different NoC columns, so their DRAM reads do not queue on
one column's links). The compute thread runs the online softmax over the
K/V chunks, carrying the running row max m, row sum l and accumulator acc; the
generated writer stores acc / l.

Causal (`causal=True`, k_chunk a multiple of q_chunk): Q chunk i attends to K/V chunks
0..i·q_chunk // k_chunk (`loop_bounds`), the generated reader reads just those;
`deal="serpentine"` gives each core a long and a short row of the triangle and walks
the short one's K/V chunks backwards, so every core of a column takes chunk j at the
same step, and the core that needs every chunk of the round (first or last of the
column) multicasts it to those that need it. The compute thread learns its Q chunk
with `block_index` and masks the diagonal chunk's scores with `tril(s, diagonal,
-inf)` (docs/dsl.md, "Triangular masks"; last in a forward walk, first in a backward
one): the compiler fills the element masks of the diagonal's tiles once per run, and
skips the tiles above the diagonal in Q·Kᵀ, the row max, exp, the row sum and P·V
(d2m-skip-masked-tiles). A Q chunk's diagonal K/V chunk is masked entirely past the
Q chunk's last query: that step reads only the keys before it, through views of the
K and V blocks (`k_blk[:, 0:keys]`, docs/dsl.md "Block views"), one step per
position of the Q chunk in its K/V chunk (`diagonal_step`), a run-time `if` picking
the one that runs.

    python examples/flash_attention.py
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import torch
from ttlang import (
    CircularBuffer,
    Program,
    TensorSpec,
    block_index,
    compute,
    datamovement,
    full,
    maximum,
    pykernel_gen,
    tril,
    zeros,
)
from ttlang.dsl.diagnostics import L1BudgetError
from ttlang.device import load_device

try:  # imported as examples.flash_attention (tests, bench), or run as a script
    from examples import flash_attention_explicit as explicit
except ModuleNotFoundError:
    import flash_attention_explicit as explicit

TILE = 32
NEG_INF = float("-inf")


def by_query(i, h, j):
    return (h, i, 0)


def by_key(i, h, j):
    return (h, j, 0)


def diagonal(q_per_k):  # causal: Q chunk i attends to K/V chunks 0..i // q_per_k
    return lambda i, h, j: i // q_per_k + 1


@functools.cache
def flash_attention_kernel(
    grid, q_chunk, k_chunk, head_dim, fp32_dest_acc, kv_dtype="bfloat16", causal=False
):
    """The kernel for one grid, chunk size pair, head size, DST mode, K/V device dtype
    and masking (they fix its CB blocks, formats and compute configuration); cached, so
    its compilations are too. Causal needs k_chunk a multiple of q_chunk (the diagonal
    of a Q chunk then lies in one K/V chunk)."""
    qt, kt, dt = q_chunk // TILE, k_chunk // TILE, head_dim // TILE
    assert not causal or k_chunk % q_chunk == 0, "causal: a Q chunk's diagonal is in one K/V chunk"
    q_per_k = k_chunk // q_chunk

    @pykernel_gen(
        grid=grid,
        block_factors=[(1, qt, dt), (1, kt, dt), (1, kt, dt), (1, qt, dt)],
        indexing_maps=[by_query, by_key, by_key, by_query],
        iterator_types=["parallel", "parallel", "reduction"],
        loop_bounds=[None, None, diagonal(q_per_k) if causal else None],
        deal="serpentine" if causal else "contiguous",  # a core gets short and long rows
        cb_buffers=[2, 3, 3, 2] if causal else 2,  # K/V: slack for the row's multicasts
        fp32_dest_acc_en=fp32_dest_acc,
        dtypes={"k": kv_dtype, "v": kv_dtype},  # "bfloat8_b": K and V as tt-metal's SDPA keeps them
        math_approx_mode=True,  # approximate exp, as tt-metal's SDPA
    )
    def flash_attention(q, k, v, out, scale: float = 1.0):
        heads = q.shape[0] // grid[1]  # per core
        q_chunks = q.shape[1] // q_chunk // grid[0]  # per core
        kv_chunks = k.shape[1] // k_chunk

        def online_softmax(q, k, v, m, l, acc, diagonal=None):
            s = q @ k.transpose()
            if diagonal is not None:  # causal: keys past a query's own are -inf
                s = tril(s, diagonal=diagonal, value=NEG_INF)
            m_new = maximum(m, s.rowmax())
            p = (s - m_new).exp()
            alpha = (m - m_new).exp()  # rescales what was summed under the old max
            return m_new, l * alpha + p.rowsum(), acc * alpha + p @ v

        def diagonal_step(r, n, q, k_blk, v_blk, m, l, acc):
            """The diagonal K/V chunk of the nth Q chunk i, if i % q_per_k is r (else
            that of r + 1, ...): its keys up to Q chunk i's last query (a view), masked
            past each query's own (tril). r is a compile-time int: one step per r, a
            run-time `if` picking the one that runs."""
            keys = (r + 1) * qt  # tile rows of the K/V views
            if block_index(0, n) % q_per_k == r:
                m, l, acc = online_softmax(
                    q, k_blk[:, 0:keys], v_blk[:, 0:keys], m, l, acc, r * q_chunk
                )
            if r + 1 < q_per_k:
                m, l, acc = diagonal_step(r + 1, n, q, k_blk, v_blk, m, l, acc)
            return m, l, acc

        @compute()
        def attention(q_cb, k_cb, v_cb, out_cb):
            for n in range(q_chunks):
                for _head in range(heads):
                    unmasked = block_index(0, n) // q_per_k if causal else kv_chunks
                    # serpentine: odd n walk the K/V chunks backwards, the diagonal first
                    before = unmasked - unmasked * (n % 2) if causal else kv_chunks
                    with q_cb.wait() as q_blk:
                        q_scaled = q_blk * scale
                        m = full((1, q_chunk, 1), NEG_INF)
                        l = zeros((1, q_chunk, 1))
                        acc = zeros((1, q_chunk, head_dim))
                        for _ in range(before):
                            with k_cb.wait() as k_blk, v_cb.wait() as v_blk:
                                m, l, acc = online_softmax(q_scaled, k_blk, v_blk, m, l, acc)
                        if causal:  # the diagonal chunk, then the rest of a backward walk
                            with k_cb.wait() as k_blk, v_cb.wait() as v_blk:
                                m, l, acc = diagonal_step(0, n, q_scaled, k_blk, v_blk, m, l, acc)
                            for _ in range(unmasked - before):
                                with k_cb.wait() as k_blk, v_cb.wait() as v_blk:
                                    m, l, acc = online_softmax(q_scaled, k_blk, v_blk, m, l, acc)
                    with out_cb.reserve() as o:
                        o.store(acc / l)

        @datamovement()
        def movement(q_cb, k_cb, v_cb, out_cb):
            pass  # generated: reader and writer

        return Program(attention, movement)(q, k, v, out)

    return flash_attention


# ------------------------------------------------------------------ host side

KERNELS = ("implicit", "explicit")
"""`implicit`: the kernel above; `explicit`: examples/flash_attention_explicit.py's."""
DEVICE_GRID = load_device().grid.compute_grid
"""The cores (rows, cols) the n150 gives kernels (its device description)."""
N150_CORES = DEVICE_GRID[0] * DEVICE_GRID[1]
PEAK_FLOP_PER_CYCLE = {f: load_device().peak_flops_per_cycle(f) for f in ("LoFi", "HiFi2", "HiFi3", "HiFi4")}
"""Per core, from the device description (8x16 x 16x16 per cycle per fidelity phase)."""
Q_CHUNK_CANDIDATES = (256, 128, 64, 32)
K_CHUNK_CANDIDATES = (1024, 512, 256, 128, 64, 32)
QUICK_Q_CHUNK = 128
"""The default Q chunk where every core still gets a unit: at S = 2048 it gives each core
two units, so one unit's Q read and O write overlap the other's math, and its four tile
rows keep the matmul subblocks full (64-row chunks lose more to short subblocks than
they gain; docs/flash_attention.md "Chunk sizes")."""


@dataclass
class FlashAttention:
    """One compiled FlashAttention: the artifact and the choices it was built with."""

    shape: tuple[int, int, int, int]  # (batch, heads, seq_len, head_dim)
    causal: bool
    scale: float
    q_chunk: int
    k_chunk: int
    grid: tuple[int, int]  # the cores the kernel runs on
    kernel: str  # one of KERNELS
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
        layout = _layout(self.shape, self.kernel)
        q2, k2, v2 = (t.to(torch.bfloat16).reshape(layout).contiguous() for t in (q, k, v))
        out = torch.zeros(layout, dtype=torch.bfloat16)
        if self.kernel == "implicit":
            self.artifact.run([q2, k2, v2, out])
        else:
            self.artifact.run([q2, k2, v2, _mask(self.causal, self.q_chunk, self.k_chunk), out])
        return out.reshape(self.shape)

    def perf_summary(self) -> str:
        """Modeled time of the last run (the calibrated cost model, docs/cost_model.md),
        its TFLOP/s and share of the n150 8x8 peak."""
        report = self.artifact.perf()
        seconds = report.cycles / report.clock_hz
        peak = N150_CORES * PEAK_FLOP_PER_CYCLE[report.math_fidelity] * report.clock_hz
        tflops = self.flops / seconds / 1e12
        return (
            f"{report.cycles} cycles = {seconds * 1e6:.1f} us at 1 GHz, {tflops:.2f} TFLOP/s = "
            f"{100e12 * tflops / peak:.1f}% of the n150 8x8 {report.math_fidelity} peak "
            f"({peak / 1e12:.0f} TFLOP/s); cost model calibrated on tt-metal's published "
            "measurements (docs/cost_model.md)"
        )


def _layout(shape, kernel: str) -> tuple[int, ...]:
    """How a kernel takes q, k, v and out: [B·H, S, D] (implicit), [B·H·S, D] (explicit)."""
    batch, heads, seq_len, head_dim = shape
    if kernel == "implicit":
        return (batch * heads, seq_len, head_dim)
    return (batch * heads * seq_len, head_dim)


def _mask(causal: bool, q_chunk: int, k_chunk: int) -> torch.Tensor:
    if causal:
        return explicit.causal_mask_band(q_chunk, k_chunk)
    return torch.zeros(TILE, TILE, dtype=torch.bfloat16)


def implicit_grid(shape, q_chunk: int, grid, paired: bool = False) -> tuple[int, int]:
    """The cores the implicit kernel splits the work over: as many grid rows as divide
    the Q chunks, as many columns as divide the heads (each core gets the same number);
    `paired` (causal), as many rows as divide half the Q chunks when there are enough
    for every row to take two, a short and a long row of the triangle."""
    batch, heads, seq_len, _ = shape

    def divisor(n: int, at_most: int) -> int:
        return max(d for d in range(1, at_most + 1) if n % d == 0)

    q_chunks = seq_len // q_chunk
    if paired and q_chunks % 2 == 0 and q_chunks >= 2 * grid[0]:
        q_chunks //= 2
    return divisor(q_chunks, grid[0]), divisor(batch * heads, grid[1])


def compile_flash_attention(
    shape,
    *,
    causal=False,
    scale=None,
    q_chunk=None,
    k_chunk=None,
    grid=(8, 8),
    fp32_dest_acc=False,
    kernel=None,
    kv_dtype="bfloat16",
) -> FlashAttention:
    """Compiles FlashAttention for q, k, v of `shape` [B, H, S, D] with `kernel` (one of
    KERNELS; default implicit). An explicit chunk size that cannot work raises
    ValueError; the implicit kernel's causal diagonal of a Q chunk lies in one K/V
    chunk, so it takes k_chunk a multiple of q_chunk. Chunk sizes left as None follow
    what the cost model rewards (bench/flash_attention.py, docs/flash_attention.md
    "Chunk sizes"): Q chunks of QUICK_Q_CHUNK rows when that still gives every core a
    unit, else the largest Q chunk that does (causal: two units, a short and a long row
    of the triangle, if Q chunks stay >= 64 rows); and the largest K chunk that fits L1
    and leaves at least two K steps, so the next chunk's read overlaps this one's math
    (causal too, a multiple of the Q chunk: the compiler skips the tiles above the
    diagonal, so a wider diagonal block costs no masked work). The explicit kernel, the
    benchmark baseline, keeps the rule it was measured with: the largest Q chunk that
    gives every core a unit, K chunks of at most 256 rows (causal: 128 or the Q chunk,
    whichever is larger).
    `kv_dtype="bfloat8_b"` stores K and V as bfp8_b, as tt-metal's SDPA does: half the
    bytes in DRAM, L1 and on the NoC, at bfp8_b's precision (docs/dsl.md)."""
    batch, heads, seq_len, head_dim = shape
    grid = tuple(grid)
    _check_shape(shape, grid)
    kernel = kernel or "implicit"
    if kernel not in KERNELS:
        raise ValueError(f"kernel={kernel!r}: choose one of {KERNELS}")
    if causal and kernel == "implicit" and q_chunk and k_chunk and k_chunk % q_chunk:
        raise ValueError(
            f"q_chunk={q_chunk}, k_chunk={k_chunk}: the implicit kernel's causal diagonal "
            "must lie in one K/V chunk, so k_chunk must be a multiple of q_chunk"
        )
    scale = 1.0 / math.sqrt(head_dim) if scale is None else float(scale)
    cores = grid[0] * grid[1]

    def units(q_size: int) -> int:
        return batch * heads * (seq_len // q_size)

    q_options = _chunk_options("q_chunk", q_chunk, seq_len, Q_CHUNK_CANDIDATES)
    if q_chunk is None:
        pairs = [c for c in q_options if causal and c >= 64 and units(c) >= 2 * cores]
        busy = [c for c in q_options if units(c) >= cores]
        quick = [c for c in busy if c == QUICK_Q_CHUNK and kernel == "implicit"]
        q_options = list(dict.fromkeys(pairs + quick + busy + q_options))
    k_candidates = K_CHUNK_CANDIDATES if kernel == "implicit" else Q_CHUNK_CANDIDATES
    k_options = _chunk_options("k_chunk", k_chunk, seq_len, k_candidates)

    def k_preference(q_size: int):
        """The sort key putting the K chunks to try for `q_size` first."""
        if not causal or kernel == "implicit":  # largest first, a single K step last
            return lambda c: (c == seq_len, -c)
        return lambda c: (c > max(q_size, 128), -c)

    failures = []
    for q_size in q_options:
        for k_size in sorted(k_options, key=k_preference(q_size)):
            if kernel == "implicit":
                if causal and k_size % q_size:
                    continue
                cores = implicit_grid(shape, q_size, grid, paired=causal)
                compiled = flash_attention_kernel(
                    cores, q_size, k_size, head_dim, fp32_dest_acc, kv_dtype, causal
                )
                params = {"scale": scale}
            else:
                cores = grid
                compiled = explicit.flash_attention_kernel(
                    grid, q_size, k_size, head_dim, causal, fp32_dest_acc, kv_dtype
                )
                params = {"seq_len": seq_len, "scale": scale}
            start = time.perf_counter()
            specs = _specs(shape, causal, q_size, k_size, kernel)
            try:
                artifact = compiled.compile(*specs, **params)
            except L1BudgetError as error:  # program assembly's L1 budget check
                if error.bytes_needed is None:
                    raise
                failures.append(
                    f"q_chunk={q_size}, k_chunk={k_size}: needs {error.bytes_needed // 1024} KiB "
                    f"of CBs, a core has {error.bytes_available // 1024} KiB of L1 for them"
                )
                continue
            seconds = time.perf_counter() - start
            return FlashAttention(
                shape, causal, scale, q_size, k_size, cores, kernel, artifact, seconds
            )
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
    kernel=None,
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
        kernel=kernel,
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


def _chunk_options(name: str, chunk: int | None, seq_len: int, candidates) -> list[int]:
    if chunk is None:
        return [c for c in candidates if seq_len % c == 0]
    if chunk <= 0 or chunk % TILE or seq_len % chunk:
        raise ValueError(
            f"{name}={chunk} must be a positive multiple of {TILE} dividing seq_len={seq_len}"
        )
    return [chunk]


def _specs(shape, causal: bool, q_chunk: int, k_chunk: int, kernel: str) -> list[TensorSpec]:
    tensor = TensorSpec(_layout(shape, kernel))
    if kernel == "implicit":
        return [tensor] * 4
    mask_shape = tuple(_mask(causal, q_chunk, k_chunk).shape)
    return [tensor] * 3 + [TensorSpec(mask_shape), tensor]


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
            f"{compiled.kernel} kernel, q_chunk {compiled.q_chunk}, k_chunk {compiled.k_chunk}, grid "
            f"{compiled.grid[0]}x{compiled.grid[1]}: PCC {pcc:.6f}, max abs error {error:.4f} "
            f"vs torch SDPA\n  modeled: {compiled.perf_summary()}"
        )


if __name__ == "__main__":
    main()
