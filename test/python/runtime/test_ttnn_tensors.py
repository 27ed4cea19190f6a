"""Kernels called with ttnn tensors, as tt-lang's `ttnn_interop` tests called them
(ttlang.runtime.ttnn_tensors): device tensors in, the result left in the output device
tensor. Without a card, ttnn is fake_ttnn (tensors hold their values in torch); the
kernels run on the emulator and are compared with torch: bf16 outputs of exact or
one-rounding computations, so max-abs tolerances are one bf16 ulp of the values.
"""

from __future__ import annotations

import sys

import pytest
import torch

import fake_ttnn
from examples.eltwise_add import add
from ttlang.dsl.diagnostics import KernelError
from ttlang.d2m_api import *
from ttlang.operators import exp
from ttlang.runtime import launcher

TILE = 32


@pytest.fixture
def ttnn(monkeypatch):
    """ttnn is fake_ttnn; the kernels run on the emulator."""
    monkeypatch.setitem(sys.modules, "ttnn", fake_ttnn)
    monkeypatch.setenv("TTLANG_TARGET", "emulator")
    fake_ttnn.calls.clear()
    yield fake_ttnn
    fake_ttnn.calls.clear()


def on_device(ttnn, tensor: torch.Tensor, dtype=None):
    return ttnn.from_torch(
        tensor,
        dtype=dtype or ttnn.bfloat16,
        layout=ttnn.TILE_LAYOUT,
        device=ttnn.open_device(device_id=0),
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


def test_the_result_lands_in_the_output_device_tensor(ttnn):
    a = torch.full((TILE, TILE), 2.0, dtype=torch.bfloat16)
    b = torch.randn(TILE, TILE, dtype=torch.bfloat16)
    lhs, rhs = on_device(ttnn, a), on_device(ttnn, b)
    out = on_device(ttnn, torch.full((TILE, TILE), -999.0, dtype=torch.bfloat16))
    add(lhs, rhs, out)  # examples/eltwise_add.py, called as tt-lang's test_ttnn_interop_add
    result = ttnn.to_torch(out)
    assert result.dtype == torch.bfloat16
    # one bf16 rounding of an exact fp32 sum
    assert torch.equal(result, (a.float() + b.float()).to(torch.bfloat16))
    assert ("copy_host_to_device_tensor", out.address) in ttnn.calls
    assert torch.equal(ttnn.to_torch(lhs), a) and torch.equal(ttnn.to_torch(rhs), b)  # inputs unchanged


@pykernel_gen(grid=(2, 2), block_factors=[(1, 1), (1, 1), (1, 1)])
def accumulate(acc, addend, out):
    """Implicit operands: out = acc + addend over a 2x2 grid, every thread generated but
    compute."""

    @compute()
    async def add(acc_cb: CircularBuffer, addend_cb: CircularBuffer, out_cb: CircularBuffer):
        with acc_cb.wait() as a, addend_cb.wait() as b, out_cb.reserve() as o:
            o.store(a + b)

    @datamovement()
    async def dm0(acc_cb: CircularBuffer, addend_cb: CircularBuffer, out_cb: CircularBuffer):
        pass

    return Program(add, dm0)(acc, addend, out)


def test_one_ttnn_tensor_as_input_and_output_is_one_buffer(ttnn):
    acc = on_device(ttnn, torch.full((2 * TILE, 2 * TILE), 3.0), ttnn.float32)
    addend = on_device(ttnn, torch.full((2 * TILE, 2 * TILE), 6.0), ttnn.float32)
    accumulate(acc, addend, acc)
    result = ttnn.to_torch(acc)
    assert result.dtype == torch.float32 and torch.equal(result, torch.full((2 * TILE, 2 * TILE), 9.0))
    # read once: the emulator sees one torch tensor, so one buffer (by storage identity)
    on_host = launcher._on_host({"acc": acc, "addend": addend, "out": acc})
    assert on_host["acc"] is on_host["out"] and on_host["addend"] is not on_host["acc"]


def test_a_bfloat8_b_ttnn_tensor_is_a_bfp8_b_buffer(ttnn):
    acc = on_device(ttnn, torch.randn(2 * TILE, 2 * TILE), ttnn.bfloat8_b)  # no `dtypes` option
    addend = on_device(ttnn, torch.zeros(2 * TILE, 2 * TILE))
    out = on_device(ttnn, torch.zeros(2 * TILE, 2 * TILE))
    artifact = accumulate.compile(acc, addend, out)
    assert [b.data_format for b in artifact.program.buffers] == ["bfp8_b", "bf16", "bf16"]
    artifact(acc, addend, out)
    # bfp8_b values (7-bit mantissas) are exact in bf16: adding zeros returns them unchanged
    assert torch.equal(ttnn.to_torch(out).float(), ttnn.to_torch(acc))


@pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1)])
def exp_kernel(x, out):
    @compute()
    async def apply(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            o.store(exp(blk))

    @datamovement()
    async def dm0(x_cb: CircularBuffer, out_cb: CircularBuffer):
        pass

    return Program(apply, dm0)(x, out)


def test_an_output_on_the_host_is_refused_at_the_call(ttnn):
    x = on_device(ttnn, torch.zeros(TILE, TILE))
    out = ttnn.from_torch(torch.zeros(TILE, TILE), dtype=ttnn.bfloat16)  # no device: host storage
    with pytest.raises(KernelError, match=r"output `out` is a ttnn host tensor") as caught:
        exp_kernel(x, out)
    assert caught.value.location.filename == __file__
    assert "device=device" in caught.value.hint


def test_a_ttnn_dtype_kernels_do_not_take_is_a_kernel_error(ttnn):
    x = on_device(ttnn, torch.zeros(TILE, TILE), ttnn.uint32)
    out = on_device(ttnn, torch.zeros(TILE, TILE))
    with pytest.raises(KernelError, match=r"tensor `x` has dtype ttnn\.uint32; kernels take bfloat16 or float32") as caught:
        exp_kernel(x, out)
    assert "ttnn.typecast" in caught.value.hint
