"""Matmul sharded over a 4x4 grid, with a loop over K.

Core (row, col) owns the 2x2-tile block (row, col) of the output. Its reader streams
the K blocks of its row of `a` and column of `b` through double-buffered CBs; the
compute thread accumulates their products in a loop-carried block.

    python examples/matmul.py
"""

import torch

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
    zeros,
)

GRID = 4
BLOCK = 2  # tiles per block side


def matmul_kernel(dtypes=None, fp32_dest_acc_en=False):
    """The kernel; `dtypes` and `fp32_dest_acc_en` as @pykernel_gen takes them, e.g.
    {"a": "bfloat8_b", "b": "bfloat8_b"} for inputs stored as bfp8_b
    (test/python/e2e/test_bfp8.py)."""

    @pykernel_gen(
        grid=(GRID, GRID),
        block_factors=[(BLOCK, BLOCK)] * 3,
        dtypes=dtypes,
        fp32_dest_acc_en=fp32_dest_acc_en,
    )
    def matmul(a, b, out):
        a_acc, b_acc, out_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(out)
        k_blocks = a.shape[1] // (32 * BLOCK)

        @compute()
        def mm(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            acc = zeros((BLOCK * 32, BLOCK * 32))
            for k in range(k_blocks):
                with a_cb.wait() as a_blk, b_cb.wait() as b_blk:
                    acc = acc + a_blk @ b_blk
            with out_cb.reserve() as o:
                o.store(acc)

        @datamovement()
        def reader(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            row, col = core_index(0), core_index(1)
            for k in range(k_blocks):
                with a_cb.reserve() as blk:
                    dma(a_acc[row * BLOCK, k * BLOCK], blk).wait()
                with b_cb.reserve() as blk:
                    dma(b_acc[k * BLOCK, col * BLOCK], blk).wait()

        @datamovement()
        def writer(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            row, col = core_index(0), core_index(1)
            with out_cb.wait() as blk:
                dma(blk, out_acc[row * BLOCK, col * BLOCK]).wait()

        return Program(mm, reader, writer)(a, b, out)

    return matmul


matmul = matmul_kernel()


def main() -> None:
    torch.manual_seed(0)
    m = n = GRID * BLOCK * 32
    k = 4 * BLOCK * 32
    a = torch.randn(m, k, dtype=torch.bfloat16)
    b = torch.randn(k, n, dtype=torch.bfloat16)
    out = torch.zeros(m, n, dtype=torch.bfloat16)
    matmul(a, b, out)
    expected = a.float() @ b.float()
    # bf16 inputs, products accumulated in DST and rounded to bf16 per K block
    torch.testing.assert_close(out.float(), expected, rtol=2e-2, atol=0.5)
    print("matmul: matches torch")


if __name__ == "__main__":
    main()
