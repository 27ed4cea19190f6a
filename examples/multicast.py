"""Multicast with semaphores: core (0, 0) reads a block from DRAM once and multicasts it
to the other cores of its row; every core writes exp of that block to its own block of
the output.

The handshake is tt-metal's: each receiver, once it has reserved room for the block,
increments the sender's `ready` semaphore; the sender waits for all of them, multicasts
the block into the same CB slot on every receiver, then sets their `valid` semaphore.

    python examples/multicast.py
"""

import torch
from ttlang import (
    CircularBuffer,
    Program,
    Semaphore,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    pykernel_gen,
)

COLS = 3  # cores in the row
BLOCK = (1, 2)  # tiles per block


@pykernel_gen(grid=(1, COLS), block_factors=[BLOCK, BLOCK])
def broadcast_exp(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def apply(x_cb: CircularBuffer, out_cb: CircularBuffer, ready: Semaphore, valid: Semaphore):
        with x_cb.wait() as a, out_cb.reserve() as o:
            o.store(a.exp())

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer, ready: Semaphore, valid: Semaphore):
        with x_cb.reserve() as blk:
            if core_index(1) == 0:
                dma(x_acc[0, 0], blk).wait()
                ready.wait(COLS - 1, reset=0)  # every receiver has reserved its block
                dma(blk, blk, core=(0, 1), mcast=(1, COLS - 1)).wait()
                valid.set(1, core=(0, 1), mcast=(1, COLS - 1))
            else:
                ready.inc(1, core=(0, 0))
                valid.wait(1, reset=0)

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer, ready: Semaphore, valid: Semaphore):
        with out_cb.wait() as blk:
            dma(blk, out_acc[0, core_index(1) * BLOCK[1]]).wait()

    return Program(apply, reader, writer)(x, out)


def main() -> None:
    torch.manual_seed(0)
    x = (4 * torch.rand(BLOCK[0] * 32, COLS * BLOCK[1] * 32) - 2).to(torch.bfloat16)
    out = torch.zeros_like(x)
    broadcast_exp(x, out)
    first_block = x[:, : BLOCK[1] * 32].float().exp()
    # exp of values in [-2, 2]: at most ~7.4, where a bf16 ulp is 0.03
    torch.testing.assert_close(out.float(), first_block.repeat(1, COLS), rtol=0, atol=0.06)
    print("multicast: matches torch")


if __name__ == "__main__":
    main()
