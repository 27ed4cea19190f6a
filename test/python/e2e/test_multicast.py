"""Multicast and semaphores end to end: core (0, 0) reads a block once and multicasts it
to the other cores of its row, which compute with it."""

from __future__ import annotations

import torch
from e2e_kernels import TILE, assert_close, random_bf16

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

COLS = 3
BLOCK = (1, 2)


@pykernel_gen(grid=(1, COLS), block_factors=[BLOCK, BLOCK])
def broadcast_exp(x, out):
    """Every core writes exp of the same block of x (x's first block) to its own block
    of out; only core (0, 0) reads x from DRAM."""
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


def test_multicast_with_semaphores():
    x = random_bf16((TILE, COLS * BLOCK[1] * TILE), -2.0, 2.0, seed=20)
    out = torch.zeros_like(x)
    broadcast_exp(x, out)
    first_block = x[:, : BLOCK[1] * TILE].float().exp()
    # exp of values in [-2, 2]: at most ~7.4, where a bf16 ulp is 0.03
    assert_close(out, first_block.repeat(1, COLS), max_abs=0.06)
