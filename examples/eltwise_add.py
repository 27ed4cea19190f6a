"""Eltwise add of two 32x32 bf16 tensors on one core: the smallest complete kernel.

A reader thread moves the input tiles from DRAM into their circular buffers, the
compute thread adds them, and a writer thread moves the sum back to DRAM.

    python examples/eltwise_add.py
"""

import torch

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    datamovement,
    dma,
    pykernel_gen,
)


@pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1), (1, 1)])
def add(lhs, rhs, out):
    lhs_acc, rhs_acc = TensorAccessor(lhs), TensorAccessor(rhs)
    out_acc = TensorAccessor(out)

    @compute()
    def add_compute(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        l = lhs_cb.wait()
        r = rhs_cb.wait()
        o = out_cb.reserve()
        o.store(l + r)
        lhs_cb.pop()
        rhs_cb.pop()
        out_cb.push()

    @datamovement()
    def reader(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        blk = lhs_cb.reserve()
        dma(lhs_acc[0, 0], blk).wait()
        lhs_cb.push()
        blk = rhs_cb.reserve()
        dma(rhs_acc[0, 0], blk).wait()
        rhs_cb.push()

    @datamovement()
    def writer(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        blk = out_cb.wait()
        dma(blk, out_acc[0, 0]).wait()
        out_cb.pop()

    return Program(add_compute, reader, writer)(lhs, rhs, out)


def main() -> None:
    torch.manual_seed(0)
    a = torch.randn(32, 32, dtype=torch.bfloat16)
    b = torch.randn(32, 32, dtype=torch.bfloat16)
    c = torch.zeros(32, 32, dtype=torch.bfloat16)
    add(a, b, c)
    torch.testing.assert_close(c, a + b, rtol=1e-2, atol=1e-2)
    print("eltwise add: matches torch")


if __name__ == "__main__":
    main()
