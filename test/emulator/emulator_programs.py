"""Program descriptors for the hand-written kernels in test/emulator/kernels.

Shared by the pytest suite (test/python/runtime) and the benchmarks (bench/), which
put this directory on sys.path.
"""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path

from ttlang.runtime.program import (
    BufferAddress,
    CBConfig,
    ComputeConfig,
    DramBuffer,
    Kernel,
    Program,
    tile_size_bytes,
)

KERNELS_DIR = Path(__file__).resolve().parent / "kernels"
TENSOR_ACCESSOR_DRAM = 2  # tt-metal ArgConfig::IsDram: an interleaved DRAM tensor


def kernel(file_name: str, kind: str, *compile_time_args: int, noc: int | None = None) -> Kernel:
    """A Kernel named after its source file in test/emulator/kernels (`noc`: its NoC, None
    for its kind's)."""
    source = (KERNELS_DIR / file_name).read_text()
    return Kernel(name=Path(file_name).stem, kind=kind, source=source, compile_time_args=compile_time_args, noc=noc)


def grid_cores(grid: tuple[int, int]) -> list[tuple[int, int]]:
    return [(r, c) for r in range(grid[0]) for c in range(grid[1])]


def eltwise_add(shape: tuple[int, int], grid: tuple[int, int]) -> Program:
    """out = a + b, the tiles split evenly over the grid (buffers a, b, out)."""
    cb_a, cb_b, cb_out = 0, 1, 16
    cores = grid_cores(grid)
    per_core = (shape[0] // 32) * (shape[1] // 32) // len(cores)
    start = {core: i * per_core for i, core in enumerate(cores)}
    page = tile_size_bytes("bf16")
    return Program(
        grid=grid,
        kernels=[
            kernel("reader_binary.cpp", "reader", cb_a, cb_b),
            kernel("compute_eltwise_add.cpp", "compute", cb_a, cb_b, cb_out),
            kernel("writer_unary.cpp", "writer", cb_out, TENSOR_ACCESSOR_DRAM),
        ],
        cbs=[CBConfig(cb_a, 2, page), CBConfig(cb_b, 2, page), CBConfig(cb_out, 2, page)],
        buffers=[DramBuffer("a", shape), DramBuffer("b", shape), DramBuffer("out", shape, is_input=False, is_output=True)],
        runtime_args={
            "reader_binary": {c: [BufferAddress("a"), BufferAddress("b"), start[c], per_core] for c in cores},
            "compute_eltwise_add": {c: [per_core] for c in cores},
            "writer_unary": {c: [BufferAddress("out"), start[c], per_core] for c in cores},
        },
    )


def matmul(
    m: int,
    k: int,
    n: int,
    grid: tuple[int, int],
    *,
    k_block: int = 2,
    subblock: tuple[int, int] = (2, 4),
    multicast: bool = False,
    sharded_in_l1: bool = False,
    compute_config: ComputeConfig = ComputeConfig(),
    in_format: str = "bf16",
    out_format: str = "bf16",
    l1_acc: bool = False,
    out_blocks: tuple[int, int] = (1, 1),
    out_cb_block: bool = False,
) -> Program:
    """out = a @ b with the output split into equal blocks over the grid (buffers a, b, out;
    a and b, and their CBs, in `in_format`, out in `out_format`, partial sums bf16);
    `l1_acc` accumulates the partial sums with the packer instead of reloading them
    (tt-metal's packer_l1_acc).

    With `multicast`, `out_blocks` (h, w) splits each core's output block into h x w out
    blocks, each a full pass over K (tt-metal's num_out_blocks_h/w). The output CB holds
    two subblocks, or with `out_cb_block` the whole out block, as tt-metal's matmul sizes
    it: in the partial sums' L1 when the formats match (one buffer, two CB indices).

    Each core loops over K in blocks of `k_block` tiles; `subblock` (rows, cols) of
    output tiles must fit DST. Without `multicast` every core reads its a and b blocks
    from DRAM; with it, column 0 reads a and multicasts along rows and row 0 reads b
    and multicasts down columns (tt-metal's 2D reuse-mcast matmul, whose NoCs it takes
    too: the in0 reader on the DRAM-write NoC 1, the in1 reader and output writer on the
    DRAM-read NoC 0, `in0_noc` / `in1_noc` in its program factory). `sharded_in_l1`
    (with multicast; timing only, the output is not written) takes a and out to be
    sharded in L1 already, as in the tuned configurations of tt-metal's GEMM_FLOPS.md.
    """
    cb_in0, cb_in1, cb_out, cb_partial = 0, 1, 16, 24
    rows, cols = grid
    mt, nt, kt = m // 32 // rows, n // 32 // cols, k // 32
    sbh, sbw = subblock
    obh, obw = mt // out_blocks[0], nt // out_blocks[1]
    page = tile_size_bytes("bf16")
    cores = grid_cores(grid)
    compute = kernel(
        "matmul_compute.cpp", "compute",
        cb_in0, cb_in1, cb_out, cb_partial, mt, nt, kt, k_block, sbh, sbw, int(l1_acc), obh, obw,
    )
    if not out_cb_block:  # the writer drains it a subblock at a time
        out_cb = CBConfig(cb_out, 2 * sbh * sbw, tile_size_bytes(out_format), out_format)
    elif out_format == "bf16":  # the partial sums' format: tt-metal puts both in one buffer
        out_cb = CBConfig(cb_out, obh * obw, page, out_format, shares_l1_with=cb_partial)
    else:
        out_cb = CBConfig(cb_out, obh * obw, tile_size_bytes(out_format), out_format)
    if multicast:
        kernels = [
            kernel(
                "matmul_mcast_reader.cpp", "reader",
                cb_in0, mt, kt, k_block, kt, cols, int(sharded_in_l1), obh, out_blocks[1], noc=1,
            ),
            compute,
            kernel(
                "matmul_mcast_writer.cpp", "writer",
                cb_in1, cb_out, mt, nt, kt, k_block, n // 32, rows, sbh, sbw, int(sharded_in_l1), obh, obw,
                noc=0,
            ),
        ]
        runtime_args = {
            "matmul_mcast_reader": {(r, c): [BufferAddress("a"), r * mt] for r, c in cores},
            "matmul_mcast_writer": {
                (r, c): [BufferAddress("b"), BufferAddress("out"), r * mt, c * nt] for r, c in cores
            },
        }
    else:
        if out_blocks != (1, 1):
            raise ValueError("out_blocks needs multicast")
        kernels = [
            kernel("matmul_reader.cpp", "reader", cb_in0, cb_in1, mt, nt, kt, k_block, kt, n // 32),
            compute,
            kernel("matmul_writer.cpp", "writer", cb_out, mt, nt, sbh, sbw, n // 32),
        ]
        runtime_args = {
            "matmul_reader": {(r, c): [BufferAddress("a"), BufferAddress("b"), r * mt, c * nt] for r, c in cores},
            "matmul_writer": {(r, c): [BufferAddress("out"), r * mt, c * nt] for r, c in cores},
        }
    return Program(
        grid=grid,
        kernels=kernels,
        cbs=[
            CBConfig(cb_in0, 2 * obh * k_block, tile_size_bytes(in_format), in_format),
            CBConfig(cb_in1, 2 * k_block * obw, tile_size_bytes(in_format), in_format),
            CBConfig(cb_partial, obh * obw, page),
            out_cb,
        ],
        buffers=[
            DramBuffer("a", (m, k), in_format),
            DramBuffer("b", (k, n), in_format),
            DramBuffer("out", (m, n), out_format, is_input=False, is_output=True),
        ],
        runtime_args=runtime_args,
        compute_config=compute_config,
        semaphores=[0, 0, 0, 0] if multicast else [],
    )


CB_IN, CB_SCALER, CB_OUT = 0, 2, 16
NO_CB = 32
POOLS = {"sum": 0, "max": 2}  # tt-metal PoolType
DIMS = {"row": 0, "col": 1, "scalar": 2}  # tt-metal ReduceDim
SFPU_OPS = {"exp": 0, "recip": 1, "exp_recip": 2, "copy": 3, "exp_default": 4}


def _one_core_unary(
    compute: Kernel,
    in_shape: tuple[int, int],
    out_shape: tuple[int, int],
    *,
    column_major: bool = False,
    scaler: float | None = None,
    compute_config: ComputeConfig = ComputeConfig(),
    formats: tuple[str, str] = ("bf16", "bf16"),
) -> Program:
    """reader_unary -> `compute` -> writer_unary on one core (buffers x, out, in `formats`)."""
    ht, wt = in_shape[0] // 32, in_shape[1] // 32
    out_tiles = (out_shape[0] // 32) * (out_shape[1] // 32)
    page = tile_size_bytes("bf16")
    reader_args: list = [BufferAddress("x")]
    cbs = [CBConfig(CB_IN, 2, tile_size_bytes(formats[0]), formats[0])]
    cbs.append(CBConfig(CB_OUT, 2, tile_size_bytes(formats[1]), formats[1]))
    if scaler is not None:
        reader_args.append(int.from_bytes(struct.pack("<f", scaler), "little"))
        cbs.append(CBConfig(CB_SCALER, 1, page))
    cb_scaler = CB_SCALER if scaler is not None else NO_CB
    return Program(
        grid=(1, 1),
        kernels=[
            kernel("reader_unary.cpp", "reader", CB_IN, ht, wt, int(column_major), cb_scaler),
            compute,
            kernel("writer_unary.cpp", "writer", CB_OUT, TENSOR_ACCESSOR_DRAM),
        ],
        cbs=cbs,
        buffers=[
            DramBuffer("x", in_shape, formats[0]),
            DramBuffer("out", out_shape, formats[1], is_input=False, is_output=True),
        ],
        runtime_args={
            "reader_unary": {(0, 0): reader_args},
            "writer_unary": {(0, 0): [BufferAddress("out"), 0, out_tiles]},
        },
        compute_config=compute_config,
    )


def reduce(shape: tuple[int, int], pool: str, dim: str, scaler: float) -> Program:
    """out = reduce(x * scaler) over rows (out: H x 32, column 0) or columns (32 x W, row 0)."""
    ht, wt = shape[0] // 32, shape[1] // 32
    groups, inner = (ht, wt) if dim == "row" else (wt, ht)
    out_shape = (shape[0], 32) if dim == "row" else (32, shape[1])
    compute = kernel("compute_reduce.cpp", "compute", CB_IN, CB_SCALER, CB_OUT, POOLS[pool], DIMS[dim], groups, inner)
    return _one_core_unary(compute, shape, out_shape, column_major=dim == "col", scaler=scaler)


def reduce_masked_copy(shape: tuple[int, int], dim: str) -> Program:
    """Every tile of x packed twice (out: one tile row per input tile): as the packer's
    edge masks of a `dim` reduce_init let it through, then after reduce_uninit."""
    count = (shape[0] // 32) * (shape[1] // 32)
    compute = kernel("compute_reduce_mask.cpp", "compute", CB_IN, NO_CB, CB_OUT, DIMS[dim], count)
    return _one_core_unary(compute, shape, (32 * count, 64))


def transpose(shape: tuple[int, int]) -> Program:
    """out = x^T (tiles read column-major so output tiles come out in row-major order)."""
    count = (shape[0] // 32) * (shape[1] // 32)
    compute = kernel("compute_transpose.cpp", "compute", CB_IN, CB_OUT, count)
    return _one_core_unary(compute, shape, (shape[1], shape[0]), column_major=True)


def sfpu_unary(shape: tuple[int, int], op: str, compute_config: ComputeConfig = ComputeConfig()) -> Program:
    """out = exp(x), 1/x or 1/exp(x), through DST (`exp_default`: exp_tile without its
    template argument)."""
    count = (shape[0] // 32) * (shape[1] // 32)
    compute = kernel("compute_sfpu_unary.cpp", "compute", CB_IN, CB_OUT, count, SFPU_OPS[op])
    return _one_core_unary(compute, shape, shape, compute_config=compute_config)


def exp_rate(count: int) -> Program:
    """One tile through DST with `count` approximate exp_tile calls on it (a cost probe)."""
    compute = kernel("compute_exp_rate.cpp", "compute", CB_IN, CB_OUT)
    program = _one_core_unary(compute, (32, 32), (32, 32), compute_config=ComputeConfig(math_approx_mode=True))
    program.runtime_args["compute_exp_rate"] = {(0, 0): [count]}
    return program


def copy(shape: tuple[int, int], formats: tuple[str, str], compute_config: ComputeConfig = ComputeConfig()) -> Program:
    """out = x through DST (copy_tile, pack_tile), x and out in `formats`."""
    count = (shape[0] // 32) * (shape[1] // 32)
    compute = kernel("compute_sfpu_unary.cpp", "compute", CB_IN, CB_OUT, count, SFPU_OPS["copy"])
    return _one_core_unary(compute, shape, shape, compute_config=compute_config, formats=formats)


def bcast_sub_cols(shape: tuple[int, int]) -> Program:
    """out = a - b[:, 0:1] (b: H x 32, its column 0 broadcast across each row)."""
    cb_a, cb_b = 0, 1
    ht, wt = shape[0] // 32, shape[1] // 32
    page = tile_size_bytes("bf16")
    return Program(
        grid=(1, 1),
        kernels=[
            kernel("reader_bcast_cols.cpp", "reader", cb_a, cb_b, ht, wt),
            kernel("compute_bcast_sub_cols.cpp", "compute", cb_a, cb_b, CB_OUT, ht, wt),
            kernel("writer_unary.cpp", "writer", CB_OUT, TENSOR_ACCESSOR_DRAM),
        ],
        cbs=[CBConfig(cb_a, 2, page), CBConfig(cb_b, 2, page), CBConfig(CB_OUT, 2, page)],
        buffers=[
            DramBuffer("a", shape),
            DramBuffer("b", (shape[0], 32)),
            DramBuffer("out", shape, is_input=False, is_output=True),
        ],
        runtime_args={
            "reader_bcast_cols": {(0, 0): [BufferAddress("a"), BufferAddress("b")]},
            "writer_unary": {(0, 0): [BufferAddress("out"), 0, ht * wt]},
        },
    )


def with_kernel(program: Program, kind: str, file_name: str, *compile_time_args: int) -> Program:
    """`program` with its `kind` kernel's source replaced by `file_name` (same name and runtime args)."""
    old = next(k for k in program.kernels if k.kind == kind)
    new = Kernel(name=old.name, kind=kind, source=(KERNELS_DIR / file_name).read_text(),
                 compile_time_args=compile_time_args or old.compile_time_args)
    return dataclasses.replace(program, kernels=[new if k is old else k for k in program.kernels])


def multicast_tile(grid: tuple[int, int]) -> Program:
    """Tile 0 of x multicast from core (0,0) to every core; core (r, c) writes it to out tile (r, c)."""
    rows, cols = grid
    page = tile_size_bytes("bf16")
    cores = grid_cores(grid)
    return Program(
        grid=grid,
        kernels=[
            kernel("reader_mcast_tile.cpp", "reader", CB_OUT, rows, cols),
            kernel("writer_unary.cpp", "writer", CB_OUT, TENSOR_ACCESSOR_DRAM),
        ],
        cbs=[CBConfig(CB_OUT, 1, page)],
        buffers=[
            DramBuffer("x", (32, 32)),
            DramBuffer("out", (32 * rows, 32 * cols), is_input=False, is_output=True),
        ],
        runtime_args={
            "reader_mcast_tile": {core: [BufferAddress("x")] for core in cores},
            "writer_unary": {(r, c): [BufferAddress("out"), r * cols + c, 1] for r, c in cores},
        },
        semaphores=[0, 0],
    )


TILE_OPS = [
    "sqrt", "rsqrt", "neg", "abs", "relu", "fill", "add_scalar", "mul_scalar",
    "sub_binary", "mul_binary", "div_binary", "max_binary", "min_binary",
    "reuse_sub_srca", "reuse_sub_srcb", "mul_tiles", "add_bcast_rows", "mul_bcast_scalar",
    "unary_bcast_cols",
]  # the OP_* codes of compute_tile_op.cpp, in order


def tile_op(op: str) -> Program:
    """out = op(x, y) on one tile each (buffers a = x, b = y, out), see compute_tile_op.cpp."""
    program = eltwise_add((32, 32), (1, 1))
    return with_kernel(program, "compute", "compute_tile_op.cpp", 0, 1, 16, TILE_OPS.index(op))


def where(
    shape: tuple[int, int],
    grid: tuple[int, int],
    *,
    data_format: str = "bf16",
    fp32_where: bool = False,
    slots: tuple[int, int, int, int] = (0, 1, 2, 0),
    compute_config: ComputeConfig = ComputeConfig(),
) -> Program:
    """out = where(cond, a, b) through where_tile, the tiles split evenly over the grid
    (buffers cond, a, b, out of `data_format`; see compute_where.cpp). `slots` are the
    DST slots of cond, a, b and the output; `fp32_where` picks where_tile's Float32 form."""
    cb_c, cb_t, cb_f, cb_out = 0, 1, 2, 16
    cores = grid_cores(grid)
    per_core = (shape[0] // 32) * (shape[1] // 32) // len(cores)
    start = {core: i * per_core for i, core in enumerate(cores)}
    page = tile_size_bytes(data_format)
    return Program(
        grid=grid,
        kernels=[
            kernel("reader_ternary.cpp", "reader", cb_c, cb_t, cb_f),
            kernel("compute_where.cpp", "compute", cb_c, cb_t, cb_f, cb_out, int(fp32_where), *slots),
            kernel("writer_unary.cpp", "writer", cb_out, TENSOR_ACCESSOR_DRAM),
        ],
        cbs=[CBConfig(cb, 2, page, data_format) for cb in (cb_c, cb_t, cb_f, cb_out)],
        buffers=[
            DramBuffer("cond", shape, data_format),
            DramBuffer("a", shape, data_format),
            DramBuffer("b", shape, data_format),
            DramBuffer("out", shape, data_format, is_input=False, is_output=True),
        ],
        runtime_args={
            "reader_ternary": {
                c: [BufferAddress("cond"), BufferAddress("a"), BufferAddress("b"), start[c], per_core] for c in cores
            },
            "compute_where": {c: [per_core] for c in cores},
            "writer_unary": {c: [BufferAddress("out"), start[c], per_core] for c in cores},
        },
        compute_config=compute_config,
    )
