"""Program descriptors for the hand-written kernels in test/emulator/kernels.

Shared by the pytest suite (test/python/runtime) and the benchmarks (bench/), which
put this directory on sys.path.
"""

from __future__ import annotations

from pathlib import Path

from ttlang.target.program import (
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


def kernel(file_name: str, kind: str, *compile_time_args: int) -> Kernel:
    """A Kernel named after its source file in test/emulator/kernels."""
    source = (KERNELS_DIR / file_name).read_text()
    return Kernel(name=Path(file_name).stem, kind=kind, source=source, compile_time_args=compile_time_args)


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
    compute_config: ComputeConfig = ComputeConfig(),
) -> Program:
    """out = a @ b with the output split into equal blocks over the grid (buffers a, b, out).

    Each core loops over K in blocks of `k_block` tiles; `subblock` (rows, cols) of
    output tiles must fit DST.
    """
    cb_in0, cb_in1, cb_out, cb_partial = 0, 1, 16, 24
    rows, cols = grid
    mt, nt, kt = m // 32 // rows, n // 32 // cols, k // 32
    sbh, sbw = subblock
    page = tile_size_bytes("bf16")
    cores = grid_cores(grid)
    return Program(
        grid=grid,
        kernels=[
            kernel("matmul_reader.cpp", "reader", cb_in0, cb_in1, mt, nt, kt, k_block, kt, n // 32),
            kernel("matmul_compute.cpp", "compute", cb_in0, cb_in1, cb_out, cb_partial, mt, nt, kt, k_block, sbh, sbw),
            kernel("matmul_writer.cpp", "writer", cb_out, mt, nt, sbh, sbw, n // 32),
        ],
        cbs=[
            CBConfig(cb_in0, 2 * mt * k_block, page),
            CBConfig(cb_in1, 2 * k_block * nt, page),
            CBConfig(cb_out, mt * nt, page),
            CBConfig(cb_partial, mt * nt, page),
        ],
        buffers=[DramBuffer("a", (m, k)), DramBuffer("b", (k, n)), DramBuffer("out", (m, n), is_input=False, is_output=True)],
        runtime_args={
            "matmul_reader": {(r, c): [BufferAddress("a"), BufferAddress("b"), r * mt, c * nt] for r, c in cores},
            "matmul_writer": {(r, c): [BufferAddress("out"), r * mt, c * nt] for r, c in cores},
        },
        compute_config=compute_config,
    )
