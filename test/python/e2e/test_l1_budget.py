"""Program assembly refuses CBs that do not fit a core (L1 size, CB count), naming the
kernel."""

from __future__ import annotations

import pytest
import torch

from ttlang import CircularBuffer, Program, TensorAccessor, compute, datamovement, dma, pykernel_gen
from ttlang.device import load_device
from ttlang.dialects.ttcore import DeviceAttr
from ttlang.runtime.program import CBConfig
from ttlang.conversion.program_builder import CBBudgetError, check_cb_budget

N150 = DeviceAttr.from_description(load_device("n150"))
L1_CB_BUDGET_BYTES = N150.cb_l1_bytes.data
MAX_CBS_PER_CORE = N150.max_cbs.data

BIG = (14, 14)  # tiles per block: 392 KiB of bf16; two blocks per CB


@pykernel_gen(grid=(1, 1), block_factors=[BIG, BIG])
def oversized_exp(x, out):
    x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

    @compute()
    def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            o.store(blk.exp())

    @datamovement()
    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.reserve() as blk:
            dma(x_acc[0, 0], blk).wait()

    @datamovement()
    def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[0, 0]).wait()

    return Program(apply, reader, writer)(x, out)


def test_oversized_cbs_are_a_compile_error_naming_the_kernel():
    shape = (BIG[0] * 32, BIG[1] * 32)
    x, out = torch.zeros(shape, dtype=torch.bfloat16), torch.zeros(shape, dtype=torch.bfloat16)
    with pytest.raises(Exception) as caught:
        oversized_exp.compile(x, out)
    message = str(caught.value)
    # two operand CBs of 2 x 196 tiles: 1568 KiB
    assert "kernel 'oversized_exp'" in message
    assert "2 circular buffers need 1568 KiB of L1 per core, more than the 1364 KiB" in message
    assert "cb0 392 x 2048 B" in message
    assert "internal compiler error" not in message


def test_l1_budget_is_inclusive():
    page = 2048
    fits = [CBConfig(index=0, num_pages=L1_CB_BUDGET_BYTES // page, page_size=page)]
    check_cb_budget("fits", fits, N150)
    with pytest.raises(CBBudgetError, match="kernel 'over'"):
        check_cb_budget("over", [*fits, CBConfig(index=1, num_pages=1, page_size=page)], N150)


def test_cb_count_is_limited():
    cbs = [CBConfig(index=i, num_pages=1, page_size=2048) for i in range(MAX_CBS_PER_CORE)]
    check_cb_budget("fits", cbs, N150)
    extra = CBConfig(index=MAX_CBS_PER_CORE, num_pages=1, page_size=2048)
    with pytest.raises(
        CBBudgetError, match="kernel 'over': needs 33 circular buffers, more than the 32"
    ):
        check_cb_budget("over", [*cbs, extra], N150)
