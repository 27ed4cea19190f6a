"""Tensors are passed by buffer: an output's tiles the kernel never writes keep their
values, and one tensor passed as an input and as the output is one DRAM buffer."""

from __future__ import annotations

import torch

from e2e_kernels import TILE, assert_close, binary_kernel, random_bf16, tensor_shape, unary_kernel
from ttlang import CircularBuffer, Program, TensorAccessor, compute, datamovement, dma, pykernel_gen

ROUNDS = 2


@pykernel_gen(grid=(1, 1), block_factors=[(1, 1)] * 3)
def add_twice(acc, addend, out):
    """out = acc + addend, ROUNDS times: each round re-reads `acc` after the previous
    round's write to `out` has completed (one thread does both, in order)."""
    acc_acc, addend_acc, out_acc = TensorAccessor(acc), TensorAccessor(addend), TensorAccessor(out)

    @compute()
    def apply(acc_cb: CircularBuffer, addend_cb: CircularBuffer, out_cb: CircularBuffer):
        for _ in range(ROUNDS):
            with acc_cb.wait() as a, addend_cb.wait() as b, out_cb.reserve() as o:
                o.store(a + b)

    @datamovement()
    def read_then_write(acc_cb: CircularBuffer, addend_cb: CircularBuffer, out_cb: CircularBuffer):
        for _ in range(ROUNDS):
            with acc_cb.reserve() as blk:
                dma(acc_acc[0, 0], blk).wait()
            with addend_cb.reserve() as blk:
                dma(addend_acc[0, 0], blk).wait()
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

    return Program(apply, read_then_write)(acc, addend, out)


def test_output_tiles_the_kernel_does_not_write_keep_their_values():
    # A 1x1 grid with a 1x1-tile block writes tile (0, 0) of a 2x2-tile output.
    negate = unary_kernel(lambda a: -a, block=(1, 1), grid=(1, 1))
    x = random_bf16((2 * TILE, 2 * TILE), -2, 2, seed=1)
    out = random_bf16((2 * TILE, 2 * TILE), 5, 6, seed=2)
    before = out.clone()
    negate(x, out)
    expected = before.clone()
    expected[:TILE, :TILE] = -x[:TILE, :TILE]
    # negation is exact in bf16; untouched tiles must be bit-identical
    assert torch.equal(out, expected)


def test_a_tensor_passed_as_input_and_output_is_one_buffer():
    # The second round reads what the first wrote: 3 + 3 + 3 (as two buffers: 3 + 3).
    acc = torch.full((TILE, TILE), 3.0, dtype=torch.bfloat16)
    addend = torch.full((TILE, TILE), 3.0, dtype=torch.bfloat16)
    add_twice(acc, addend, acc)
    assert torch.equal(acc, torch.full((TILE, TILE), 9.0, dtype=torch.bfloat16))


def test_distinct_tensors_stay_distinct_buffers():
    acc = torch.full((TILE, TILE), 3.0, dtype=torch.bfloat16)
    addend = torch.full((TILE, TILE), 3.0, dtype=torch.bfloat16)
    out = acc.clone()
    add_twice(acc, addend, out)
    assert torch.equal(out, torch.full((TILE, TILE), 6.0, dtype=torch.bfloat16))
    assert torch.equal(acc, torch.full((TILE, TILE), 3.0, dtype=torch.bfloat16))


def test_accumulating_into_a_shared_buffer_twice():
    add = binary_kernel(lambda a, b: a + b)
    acc = random_bf16(tensor_shape(), -1, 1, seed=3)
    addend = random_bf16(tensor_shape(), -1, 1, seed=4)
    expected = acc.float() + 2 * addend.float()
    add(acc, addend, acc)
    add(acc, addend, acc)
    # two bf16 roundings of values below 3: at most two half-ulps of 2^-7
    assert_close(acc, expected, max_abs=2 * 2**-7, min_pcc=0.999)
