"""Kernel-local CBs (`CircularBuffer(shape, dtype, buffer_factor)` in the kernel
function: no tensor behind them) end to end on the emulator, against torch: a
compute thread hands its results to the writer through one (fp32, one block of
slack), and a data-movement thread fills one with in-kernel values (the causal mask)
for a compute thread whose tensors are implicit operands. examples/causal_mask.py
(test_causal_mask.py) is a third."""

from __future__ import annotations

import pytest
import torch

from e2e_kernels import assert_close
from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    compute,
    core_index,
    datamovement,
    dma,
    fill_causal_mask,
    pykernel_gen,
)

ROWS, COLS = 64, 128  # per core: four 1x2-tile blocks (32 x 64 elements)


def staged_exp(fp32_dest_acc: bool, buffer_factor: int):
    """out = exp(x), fp32 tensors on a 2x1 grid; compute stores each block into the
    kernel-local `stage_cb`, the writer takes it from there to DRAM."""

    @pykernel_gen(grid=(2, 1), block_factors=[(1, 2), (1, 2)], fp32_dest_acc_en=fp32_dest_acc)
    def staged(x, out):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)
        stage_cb = CircularBuffer((32, 64), dtype=torch.float32, buffer_factor=buffer_factor)

        @compute()
        def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for _ in range(4):
                with x_cb.wait() as a, stage_cb.reserve() as s:
                    s.store(a.exp())

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for i in range(4):
                with x_cb.reserve() as blk:
                    dma(x_acc[core_index(0) * 2 + i // 2, (i % 2) * 2], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for i in range(4):
                with stage_cb.wait() as blk:
                    dma(blk, out_acc[core_index(0) * 2 + i // 2, (i % 2) * 2]).wait()

        return Program(apply, reader, writer)(x, out)

    return staged


@pytest.mark.parametrize("fp32_dest_acc, buffer_factor", [(False, 2), (True, 1)])
def test_compute_hands_results_to_the_writer(fp32_dest_acc, buffer_factor):
    generator = torch.Generator().manual_seed(3)
    x = torch.rand(2 * ROWS, COLS, generator=generator) * 4 - 2
    out = torch.zeros_like(x)
    kernel = staged_exp(fp32_dest_acc, buffer_factor)
    kernel(x, out)
    expected = torch.exp(x)
    # |x| <= 2, exp(x) <= e^2 ≈ 7.39. A 16-bit DST holds x and exp(x) as bf16, each
    # off by at most 2^-8 relative: |error| <= e^2 · (e^(2 · 2^-8) - 1) + 2^-8 · e^2
    # ≈ 0.087. A 32-bit DST keeps fp32 (the emulator's exp is fp32's): a few ulps.
    assert_close(out, expected, max_abs=0.087 if not fp32_dest_acc else 1e-5, min_pcc=0.9999)
    stage = next(cb for cb in kernel.compile(x, out).program.cbs if cb.name == "stage_cb")
    assert (stage.data_format, stage.num_pages) == ("fp32", 2 * buffer_factor)


@pytest.mark.parametrize("buffer_factor", [1, 3])
def test_datamovement_fills_a_mask_for_implicit_operands(buffer_factor):
    """out = x + the causal mask of a 128x128 score matrix: x and out are implicit
    operands (generated reader and writer, four 2x2-tile blocks in row-major order on
    one core); the `masks` thread fills each block's mask in the kernel-local CB."""

    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (2, 2)])
    def masked(x, out):
        mask_cb = CircularBuffer((64, 64), buffer_factor=buffer_factor)

        @compute()
        def add(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for _ in range(4):
                with x_cb.wait() as a, mask_cb.wait() as m, out_cb.reserve() as o:
                    o.store(a + m)

        @datamovement()
        def masks(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for n in range(4):
                with mask_cb.reserve() as blk:
                    fill_causal_mask(blk, (n // 2) * 64, (n % 2) * 64)

        @datamovement()
        def movement(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass  # generated: reader and writer

        return Program(add, masks, movement)(x, out)

    x = torch.randn(128, 128, generator=torch.Generator().manual_seed(5)).to(torch.bfloat16)
    out = torch.zeros_like(x)
    masked(x, out)
    expected = x.float() + torch.triu(torch.full((128, 128), float("-inf")), 1)
    # adding 0 or -inf is exact: max-abs error 0 (and -inf in the same places)
    assert torch.equal(out.float(), expected)
