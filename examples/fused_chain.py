"""A fused chain on 2x2-tile blocks over a 2x2 grid of cores:

    out = recip(sqrt(exp(a.T @ b - c)))

with a: (K, M), b: (K, N), c and out: (M, N). Core (row, col) computes the 2x2-tile
block (row, col) of the output; its reader fetches the column blocks of `a` and `b`
it needs and its block of `c`. The compute thread chains six operators, each one
linalg.generic in the frontend IR; fusion keeps the intermediates in DST.

    python examples/fused_chain.py
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
)

BLOCK = 2  # tiles per block side


@pykernel_gen(grid=(2, 2), block_factors=[(BLOCK, BLOCK)] * 4)
def fused_chain(a, b, c, out):
    a_acc, b_acc, c_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(c)
    out_acc = TensorAccessor(out)

    @compute()
    def chain(a_cb: CircularBuffer, b_cb: CircularBuffer, c_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.wait() as a_blk, b_cb.wait() as b_blk, c_cb.wait() as c_blk:
            with out_cb.reserve() as o:
                o.store((a_blk.transpose() @ b_blk - c_blk).exp().sqrt().recip())

    @datamovement()
    def reader(a_cb: CircularBuffer, b_cb: CircularBuffer, c_cb: CircularBuffer, out_cb: CircularBuffer):
        row, col = core_index(0), core_index(1)
        with a_cb.reserve() as blk:
            dma(a_acc[0, row * BLOCK], blk).wait()
        with b_cb.reserve() as blk:
            dma(b_acc[0, col * BLOCK], blk).wait()
        with c_cb.reserve() as blk:
            dma(c_acc[row * BLOCK, col * BLOCK], blk).wait()

    @datamovement()
    def writer(a_cb: CircularBuffer, b_cb: CircularBuffer, c_cb: CircularBuffer, out_cb: CircularBuffer):
        row, col = core_index(0), core_index(1)
        with out_cb.wait() as blk:
            dma(blk, out_acc[row * BLOCK, col * BLOCK]).wait()

    return Program(chain, reader, writer)(a, b, c, out)


def main() -> None:
    torch.manual_seed(0)
    size = 2 * BLOCK * 32  # two blocks per grid dimension
    a = (0.1 * torch.randn(BLOCK * 32, size)).to(torch.bfloat16)
    b = (0.1 * torch.randn(BLOCK * 32, size)).to(torch.bfloat16)
    c = (0.1 * torch.randn(size, size)).to(torch.bfloat16)
    out = torch.zeros(size, size, dtype=torch.bfloat16)
    fused_chain(a, b, c, out)
    expected = torch.exp(a.float().T @ b.float() - c.float()).sqrt().reciprocal()
    torch.testing.assert_close(out.float(), expected, rtol=3e-2, atol=3e-2)
    print("fused chain: matches torch")


if __name__ == "__main__":
    main()
