"""tt-lang's D2M-era API end to end, written the way tt-lang's tests wrote kernels:
`from ttlang.d2m_api import *`, `async def` threads, explicit wait/pop and
reserve/push, the operators as free functions from `ttlang.operators`.

One kernel shape serves every operator: a compute thread applying `expr(a, b)` to a
block of each of two inputs (a 2x2-tile block of `a`, a block of `b` of the shape
`b_block` gives), a reader and a writer, on a 2x2 grid (core (r, c) owns block (r, c)).
The reference is computed in fp32 from the same bf16 inputs; outputs are bf16, so
max-abs tolerances are a few bf16 ulps of the output magnitude (an ulp is 2^-8
relative) plus the SFPU approximation where one applies.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from e2e_kernels import assert_close, random_bf16

from ttlang.d2m_api import *
from ttlang.operators import bcast, exp, maximum, neg, recip, reduce_max, reduce_sum, rsqrt, sqrt, transpose

TILE = 32
GRID = (2, 2)
BLOCK = (2, 2)  # tiles
ROWS, COLS = BLOCK[0] * TILE, BLOCK[1] * TILE
SHAPE = (GRID[0] * ROWS, GRID[1] * COLS)


def tt_lang_kernel(expr: Callable, b_block: tuple[int, int] = BLOCK):
    """out block (r, c) = expr(a block (r, c), b block (r, c)), in tt-lang's spelling."""

    @pykernel_gen(grid=GRID, block_factors=[BLOCK, b_block, BLOCK])
    def apply_expr(a, b, out):
        a_accessor = TensorAccessor(a)
        b_accessor = TensorAccessor(b)
        out_accessor = TensorAccessor(out)

        @compute()
        async def compute_expr(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            a_block = a_cb.wait()
            b_block_ = b_cb.wait()
            o = out_cb.reserve()
            o.store(expr(a_block, b_block_))
            a_cb.pop()
            b_cb.pop()
            out_cb.push()

        @datamovement()
        async def dm_reader(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            cy = core_index(0)
            cx = core_index(1)
            a_shard = a_cb.reserve()
            tx = dma(a_accessor[cy * BLOCK[0], cx * BLOCK[1]], a_shard)
            tx.wait()
            a_cb.push()
            b_shard = b_cb.reserve()
            tx = dma(b_accessor[cy * b_block[0], cx * b_block[1]], b_shard)
            tx.wait()
            b_cb.push()

        @datamovement()
        async def dm_writer(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            cy = core_index(0)
            cx = core_index(1)
            out_shard = out_cb.wait()
            tx = dma(out_shard, out_accessor[cy * BLOCK[0], cx * BLOCK[1]])
            tx.wait()
            out_cb.pop()

        return Program(compute_expr, dm_reader, dm_writer)(a, b, out)

    return apply_expr


def blockwise(fn: Callable, a: torch.Tensor, b: torch.Tensor, b_block=BLOCK) -> torch.Tensor:
    """`fn` on every (a block, b block) pair, as the kernel applies it per core."""
    b_rows, b_cols = b_block[0] * TILE, b_block[1] * TILE
    out = torch.empty(SHAPE)
    for r in range(GRID[0]):
        for c in range(GRID[1]):
            a_window = a[r * ROWS : (r + 1) * ROWS, c * COLS : (c + 1) * COLS]
            b_window = b[r * b_rows : (r + 1) * b_rows, c * b_cols : (c + 1) * b_cols]
            out[r * ROWS : (r + 1) * ROWS, c * COLS : (c + 1) * COLS] = fn(a_window, b_window)
    return out


# --------------------------------------------------------- free-function operators

FREE_FUNCTIONS = {
    # name: (expression, torch reference, input range, max-abs)
    "exp": (lambda a, b: exp(a), lambda x, y: torch.exp(x), (-2.0, 2.0), 0.06),
    "sqrt": (lambda a, b: sqrt(a), lambda x, y: torch.sqrt(x), (0.25, 4.0), 0.02),
    "rsqrt": (lambda a, b: rsqrt(a), lambda x, y: torch.rsqrt(x), (0.25, 4.0), 0.02),
    "recip": (lambda a, b: recip(a), lambda x, y: 1.0 / x, (0.5, 2.0), 0.02),
    "neg": (lambda a, b: neg(a), lambda x, y: -x, (-2.0, 2.0), 0.0),
    "abs": (lambda a, b: abs(a), lambda x, y: x.abs(), (-2.0, 2.0), 0.0),
    "transpose": (lambda a, b: transpose(a), lambda x, y: x.T, (-2.0, 2.0), 0.0),
    "maximum": (lambda a, b: maximum(a, b), torch.maximum, (-2.0, 2.0), 0.0),
    "chain": (
        lambda a, b: recip(exp(neg(a)) + b),
        lambda x, y: 1.0 / (torch.exp(-x) + y),
        (0.5, 2.0),
        0.02,
    ),
}


@pytest.mark.parametrize("name", list(FREE_FUNCTIONS))
def test_free_function(name):
    expr, reference, (low, high), max_abs = FREE_FUNCTIONS[name]
    a = random_bf16(SHAPE, low, high, seed=11)
    b = random_bf16(SHAPE, low, high, seed=12)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    tt_lang_kernel(expr)(a, b, out)
    assert_close(out, blockwise(reference, a.float(), b.float()), max_abs=max_abs, min_pcc=0.999)


# ------------------------------------------------------------- reductions, bcast
# The scaler is a tile filled with 0.5: reduce_* reduces `a * scaler[0, 0]`.
SCALER_BLOCK = (1, 1)
SCALER = 0.5


def scaler_tensor() -> torch.Tensor:
    return torch.full((GRID[0] * TILE, GRID[1] * TILE), SCALER, dtype=torch.bfloat16)


def tile_column_zero(out: torch.Tensor) -> torch.Tensor:
    """Column 0 of every tile, as an (rows, tile columns) tensor."""
    return out[:, ::TILE]


def tile_row_zero(out: torch.Tensor) -> torch.Tensor:
    return out[::TILE, :]


REDUCTIONS = {
    # name: (expression, reference on a block of a*scaler, the part of each tile to check)
    # sums of 64 values in [-4, -0.5] halved are ~ -75 where a bf16 ulp is 0.5; the two
    # tiles of a row accumulate in DST (bf16)
    "sum_dim1": (
        lambda a, s: reduce_sum(a, s, dim=1),
        lambda x: x.sum(dim=1, keepdim=True).expand(-1, COLS),
        tile_column_zero,
        1.0,
    ),
    "sum_dim0": (
        lambda a, s: reduce_sum(a, s, dim=0),
        lambda x: x.sum(dim=0, keepdim=True).expand(ROWS, -1),
        tile_row_zero,
        1.0,
    ),
    "max_dim1": (
        lambda a, s: reduce_max(a, s, dim=1),
        lambda x: x.max(dim=1, keepdim=True).values.expand(-1, COLS),
        tile_column_zero,
        0.0,
    ),
    "max_dim0": (
        lambda a, s: reduce_max(a, s, dim=0),
        lambda x: x.max(dim=0, keepdim=True).values.expand(ROWS, -1),
        tile_row_zero,
        0.0,
    ),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduce_layout(name):
    """reduce_sum/reduce_max keep the block's shape; the reduction of a whole block row
    (dim=1) is in column 0 of each of that row's tiles, of a block column (dim=0) in row
    0 of each tile, as reduce_tile leaves them. Inputs are negative so a max starting
    from DST's zeros would show."""
    expr, reference, valid_part, max_abs = REDUCTIONS[name]
    a = random_bf16(SHAPE, -4.0, -0.5, seed=13)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    tt_lang_kernel(expr, b_block=SCALER_BLOCK)(a, scaler_tensor(), out)
    expected = blockwise(lambda x, s: reference(x * SCALER), a.float(), scaler_tensor().float(), SCALER_BLOCK)
    assert_close(valid_part(out), valid_part(expected), max_abs=max_abs, min_pcc=0.999)


@pytest.mark.parametrize("dim", [1, 0])
def test_bcast_of_reduction(dim):
    """bcast(reduce_sum(a, s, dim), dim) fills every element: the softmax denominator
    of tt-lang's FlashAttention tests, `exp(a) * recip(bcast(reduce_sum(exp(a)), 1))`."""

    def softmax(a, s):
        e = exp(a)
        return e * recip(bcast(reduce_sum(e, s, dim=dim), dim=dim))

    a = random_bf16(SHAPE, -2.0, 2.0, seed=14)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    tt_lang_kernel(softmax, b_block=SCALER_BLOCK)(a, torch.ones_like(scaler_tensor()), out)
    expected = blockwise(lambda x, s: torch.softmax(x, dim=dim), a.float(), scaler_tensor().float(), SCALER_BLOCK)
    # softmax values over 64 elements are ~1/64; exp, the sum, recip and the product
    # each round to bf16
    assert_close(out, expected, max_abs=2e-3, min_pcc=0.999)


# ------------------------------------------- values re-read through the out CB
# tt-lang's FlashAttention tests (test_runtime_flash_attention_64_head.py) store each
# intermediate into out_cb, push it, wait for it again and pop it, and keep computing
# with the value; their reader reserves and fills blocks without pushing them, and
# their compute thread pops nothing at the end: the compiler releases those blocks at
# the end of the thread. With `implicit_movement` the data-movement threads are
# empty (`pass` in tt-lang's kernels) and the compiler generates them.
HEAD = 64


def attention_head(implicit_movement: bool):
    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(2, 2)] * 5,
        memory_space="DRAM" if implicit_movement else "L1",
        ttnn_interop=implicit_movement,
    )
    def attention(Q, K, V, ones, out):
        Q_accessor = TensorAccessor(Q)
        K_accessor = TensorAccessor(K)
        V_accessor = TensorAccessor(V)
        ones_accessor = TensorAccessor(ones)
        out_accessor = TensorAccessor(out)

        @compute()
        async def compute_attention(
            Q_cb: CircularBuffer,
            K_cb: CircularBuffer,
            V_cb: CircularBuffer,
            ones_cb: CircularBuffer,
            out_cb: CircularBuffer,
        ):
            q = Q_cb.wait()
            k = K_cb.wait()
            v = V_cb.wait()
            ones_val = ones_cb.wait()
            o = out_cb.reserve()

            S = q @ transpose(k)
            o.store(S)
            out_cb.push()
            S = out_cb.wait()
            out_cb.pop()
            o = out_cb.reserve()

            S_scaled = S * (1.0 / HEAD**0.5)
            o.store(S_scaled)
            out_cb.push()
            S_scaled = out_cb.wait()
            out_cb.pop()
            o = out_cb.reserve()

            exp_S = exp(S_scaled)
            o.store(exp_S)
            out_cb.push()
            exp_S = out_cb.wait()
            out_cb.pop()
            o = out_cb.reserve()

            sum_exp = bcast(reduce_sum(exp_S, ones_val, dim=1), dim=1)
            o.store(sum_exp)
            out_cb.push()
            sum_exp = out_cb.wait()
            out_cb.pop()
            o = out_cb.reserve()

            P = exp(S_scaled) * recip(sum_exp)
            o.store(P @ v)
            out_cb.push()

        @datamovement()
        async def dm_loader(
            Q_cb: CircularBuffer,
            K_cb: CircularBuffer,
            V_cb: CircularBuffer,
            ones_cb: CircularBuffer,
            out_cb: CircularBuffer,
        ):
            if not implicit_movement:
                q_shard = Q_cb.reserve()
                dma(Q_accessor[0, 0], q_shard).wait()
                k_shard = K_cb.reserve()
                dma(K_accessor[0, 0], k_shard).wait()
                v_shard = V_cb.reserve()
                dma(V_accessor[0, 0], v_shard).wait()
                ones_shard = ones_cb.reserve()
                dma(ones_accessor[0, 0], ones_shard).wait()

        @datamovement()
        async def dm_writer(
            Q_cb: CircularBuffer,
            K_cb: CircularBuffer,
            V_cb: CircularBuffer,
            ones_cb: CircularBuffer,
            out_cb: CircularBuffer,
        ):
            if not implicit_movement:
                out_shard = out_cb.wait()
                dma(out_shard, out_accessor[0, 0]).wait()

        return Program(compute_attention, dm_loader, dm_writer)(Q, K, V, ones, out)

    return attention


@pytest.mark.parametrize("implicit_movement", [False, True], ids=["explicit_dma", "implicit"])
def test_values_re_read_through_the_out_cb(implicit_movement):
    generator = torch.Generator().manual_seed(15)
    Q, K, V = (torch.randn((HEAD, HEAD), generator=generator).to(torch.bfloat16) for _ in range(3))
    ones = torch.ones((HEAD, HEAD), dtype=torch.bfloat16)
    out = torch.zeros((HEAD, HEAD), dtype=torch.bfloat16)
    attention_head(implicit_movement)(Q, K, V, ones, out)
    expected = torch.softmax(Q.float() @ K.float().T / HEAD**0.5, dim=1) @ V.float()
    # |out| <= max |V| ~ 3; every intermediate is rounded to bf16 through the CB
    assert_close(out, expected, max_abs=0.05, min_pcc=0.999)


# ------------------------------------------------ decorator options, compile()


@pykernel_gen(
    grid=lambda a, out: (a.shape[0] // 64, a.shape[1] // 64),
    block_factors=lambda a, out: [(2, 2), (2, 2)],
    memory_space="L1",
    tiled=True,
)
def scaled_exp(a, out, block_factors=None, grid=None):
    rows, cols = block_factors[0]
    a_accessor = TensorAccessor(a)
    out_accessor = TensorAccessor(out)

    @compute()
    async def compute_exp(a_cb: CircularBuffer, out_cb: CircularBuffer):
        a_block = a_cb.wait()
        o = out_cb.reserve()
        o.store(exp(a_block * 0.5))
        out_cb.push()

    @datamovement()
    async def dm_reader(a_cb: CircularBuffer, out_cb: CircularBuffer):
        a_shard = a_cb.reserve()
        dma(a_accessor[core_index(0) * rows, core_index(1) * cols], a_shard).wait()

    @datamovement()
    async def dm_writer(a_cb: CircularBuffer, out_cb: CircularBuffer):
        out_shard = out_cb.wait()
        dma(out_shard, out_accessor[core_index(0) * rows, core_index(1) * cols]).wait()

    return Program(compute_exp, dm_reader, dm_writer)(a, out)


def test_callable_options_and_compiled_kernel_reuse():
    """grid and block_factors computed from the arguments (a 2x3 grid of 2x2-tile
    blocks here), passed to the kernel's `grid`/`block_factors` parameters; the object
    `compile` returns runs when called with tensors, again and again."""
    shape = (128, 192)
    compiled = scaled_exp.compile(torch.zeros(shape, dtype=torch.bfloat16), torch.zeros(shape, dtype=torch.bfloat16))
    for seed in (16, 17):
        a = random_bf16(shape, -2.0, 2.0, seed=seed)
        out = torch.zeros(shape, dtype=torch.bfloat16)
        compiled(a, out)
        assert_close(out, torch.exp(a.float() * 0.5), max_abs=0.03, min_pcc=0.999)


# --------------------------------------- accumulating through loops and CBs (§4)
STEPS = (2, 3)  # outer x inner iterations: 6 tiles of x per core row


@pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1), (1, 1)])
def sum_tiles(x, acc, out):
    """out = the sum of x's 6 tiles, twice: a block carried through two nested loops,
    and tt-metal's accumulation through the CB of `acc` (the compute thread its only
    consumer); out's two tiles hold the two sums."""
    x_accessor = TensorAccessor(x)
    out_accessor = TensorAccessor(out)

    @compute()
    async def compute_sums(x_cb: CircularBuffer, acc_cb: CircularBuffer, out_cb: CircularBuffer):
        total = zeros((32, 32))
        for i in range(STEPS[0]):
            for j in range(STEPS[1]):
                with x_cb.wait() as t:
                    total = total + t
        with out_cb.reserve() as o:
            o.store(total)
        with acc_cb.reserve() as a:
            a.store(zeros((32, 32)))
        for k in range(STEPS[0] * STEPS[1]):
            with x_cb.wait() as t, acc_cb.wait() as pre, acc_cb.reserve() as a:
                a.store(pre + t)
        with acc_cb.wait() as final, out_cb.reserve() as o:
            o.store(final)

    @datamovement()
    async def dm_reader(x_cb: CircularBuffer, acc_cb: CircularBuffer, out_cb: CircularBuffer):
        for k in range(2 * STEPS[0] * STEPS[1]):
            x_shard = x_cb.reserve()
            dma(x_accessor[0, k % (STEPS[0] * STEPS[1])], x_shard).wait()
            x_cb.push()

    @datamovement()
    async def dm_writer(x_cb: CircularBuffer, acc_cb: CircularBuffer, out_cb: CircularBuffer):
        for k in range(2):
            with out_cb.wait() as out_shard:
                dma(out_shard, out_accessor[0, k]).wait()

    return Program(compute_sums, dm_reader, dm_writer)(x, acc, out)


def test_sums_through_nested_loops_and_through_a_cb():
    tiles = STEPS[0] * STEPS[1]
    x = random_bf16((TILE, tiles * TILE), -1.0, 1.0, seed=18)
    out = torch.zeros((TILE, 2 * TILE), dtype=torch.bfloat16)
    sum_tiles(x, torch.zeros((TILE, TILE), dtype=torch.bfloat16), out)
    expected = x.float().reshape(TILE, tiles, TILE).sum(dim=1)
    # partial sums of up to 6 values in [-1, 1] rounded to bf16 after every add
    for k in range(2):
        assert_close(out[:, k * TILE : (k + 1) * TILE], expected, max_abs=0.05, min_pcc=0.999)


# ------------------------------------ implicit operands: `pass` data movement
# tt-lang's kernels left data movement to the compiler: threads whose body is `pass`,
# tensors no thread moves with dma (also the attention head above, implicit_movement).

# (m, n, k) loop dims: a (m, k), b (k, n), out (m, n); tiles per loop dim, tt-lang's
# block_factors spelling; a 2x2 grid splits m and n, every core walks k.
MM_FACTORS = (1, 1, 2)
MM_TILES = (4, 4, 8)  # m, n, k


@pykernel_gen(
    grid=(2, 2),
    block_factors=list(MM_FACTORS),
    indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (k, n), lambda m, n, k: (m, n)],
    iterator_types=["parallel", "parallel", "reduction"],
)
def matmul_implicit(a, b, out):
    blocks_m = MM_TILES[0] // MM_FACTORS[0] // 2
    blocks_n = MM_TILES[1] // MM_FACTORS[1] // 2
    blocks_k = MM_TILES[2] // MM_FACTORS[2]

    @compute()
    async def mm(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        for m in range(blocks_m):
            for n in range(blocks_n):
                acc = zeros((32, 32))
                for k in range(blocks_k):
                    a_block = a_cb.wait()
                    b_block = b_cb.wait()
                    acc = acc + a_block @ b_block
                o = out_cb.reserve()
                o.store(acc)

    @datamovement()
    async def dm0(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        pass

    return Program(mm, dm0)(a, b, out)


def test_matmul_with_indexing_maps_and_implicit_operands():
    """Pops and pushes left to the compiler (released at the end of each loop body)."""
    a = random_bf16((MM_TILES[0] * TILE, MM_TILES[2] * TILE), -1.0, 1.0, seed=20)
    b = random_bf16((MM_TILES[2] * TILE, MM_TILES[1] * TILE), -1.0, 1.0, seed=21)
    out = torch.zeros((MM_TILES[0] * TILE, MM_TILES[1] * TILE), dtype=torch.bfloat16)
    matmul_implicit(a, b, out)
    # K = 256 products of values in [-1, 1]: |out| up to ~15, bf16 partial sums
    assert_close(out, a.float() @ b.float(), max_abs=0.25, min_pcc=0.999)


# ---------------------------------------------------------------- num_outs


@pykernel_gen(grid=(1, 1), block_factors=[(2, 2)] * 3, num_outs=2)
def exp_and_rsqrt(a, exp_out, rsqrt_out):
    """Two outputs (tt-lang required num_outs=1): both tensors after the inputs are
    written."""
    a_accessor = TensorAccessor(a)
    exp_accessor = TensorAccessor(exp_out)
    rsqrt_accessor = TensorAccessor(rsqrt_out)

    @compute()
    async def compute_both(a_cb: CircularBuffer, exp_cb: CircularBuffer, rsqrt_cb: CircularBuffer):
        a_block = a_cb.wait()
        e = exp_cb.reserve()
        e.store(exp(a_block))
        r = rsqrt_cb.reserve()
        r.store(rsqrt(a_block))

    @datamovement()
    async def dm_reader(a_cb: CircularBuffer, exp_cb: CircularBuffer, rsqrt_cb: CircularBuffer):
        dma(a_accessor[0, 0], a_cb.reserve()).wait()

    @datamovement()
    async def dm_writer(a_cb: CircularBuffer, exp_cb: CircularBuffer, rsqrt_cb: CircularBuffer):
        dma(exp_cb.wait(), exp_accessor[0, 0]).wait()
        dma(rsqrt_cb.wait(), rsqrt_accessor[0, 0]).wait()

    return Program(compute_both, dm_reader, dm_writer)(a, exp_out, rsqrt_out)


def test_two_outputs():
    a = random_bf16((ROWS, COLS), 0.25, 2.0, seed=22)
    exp_out = torch.zeros((ROWS, COLS), dtype=torch.bfloat16)
    rsqrt_out = torch.zeros((ROWS, COLS), dtype=torch.bfloat16)
    exp_and_rsqrt(a, exp_out, rsqrt_out)
    assert_close(exp_out, torch.exp(a.float()), max_abs=0.06, min_pcc=0.999)
    assert_close(rsqrt_out, torch.rsqrt(a.float()), max_abs=0.02, min_pcc=0.999)


@pykernel_gen(grid=(2, 2), block_factors=[(2, 2), (2, 2)])
def exp_then_sqrt(x, out):
    """tt-lang's test_runtime_chained_unary pattern: the block pushed and read back is
    stored into again and pushed once more (the read-back undid the first push)."""

    @compute()
    async def compute_chained(x_cb: CircularBuffer, out_cb: CircularBuffer):
        inp = x_cb.wait()
        o = out_cb.reserve()
        o.store(exp(inp))
        out_cb.push()
        intermediate = out_cb.wait()
        o.store(sqrt(intermediate))
        x_cb.pop()
        out_cb.push()

    @datamovement()
    async def dm_movement(x_cb: CircularBuffer, out_cb: CircularBuffer):
        pass

    return Program(compute_chained, dm_movement)(x, out)


def test_store_again_into_a_block_read_back():
    x = random_bf16(SHAPE, -2.0, 2.0, seed=23)
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    exp_then_sqrt(x, out)
    # exp rounded to bf16, then sqrt: e^(x/2) up to ~2.7
    assert_close(out, torch.exp(x.float() / 2), max_abs=0.03, min_pcc=0.999)
