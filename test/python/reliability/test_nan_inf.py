"""NaN and infinity per operator (docs/dsl.md, "NaN and infinity"): the emulator
matches torch, including `maximum` and the max reductions, where NaN propagates from
either operand (before, `maximum(a, NaN)` was `a` but `maximum(NaN, b)` NaN, and
`rowmax` dropped a NaN unless it came first)."""

import math

import pytest
import torch

from ttlang import CircularBuffer, Program, TensorAccessor, compute, datamovement, dma, maximum, pykernel_gen

NAN, INF = math.nan, math.inf
SHAPE = (32, 64)  # one block of 1x2 tiles


def kernel_of(expression, out_block=(1, 2)):
    """out = expression(a, b) for two 32x64 inputs."""

    @pykernel_gen(grid=(1, 1), block_factors=[(1, 2), (1, 2), out_block])
    def apply(a, b, out):
        a_acc, b_acc, out_acc = TensorAccessor(a), TensorAccessor(b), TensorAccessor(out)

        @compute()
        def compute_thread(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
                o.store(expression(x, y))

        @datamovement()
        def reader(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            with a_cb.reserve() as blk:
                dma(a_acc[0, 0], blk).wait()
            with b_cb.reserve() as blk:
                dma(b_acc[0, 0], blk).wait()

        @datamovement()
        def writer(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(compute_thread, reader, writer)(a, b, out)

    return apply


def special_inputs():
    """a and b with NaN, +-inf and zeros at different places (row 0 holds them; other
    rows are ordinary numbers)."""
    a = torch.linspace(-2, 2, SHAPE[0] * SHAPE[1]).reshape(SHAPE)
    b = torch.linspace(3, -1, SHAPE[0] * SHAPE[1]).reshape(SHAPE)
    a[0, :8] = torch.tensor([NAN, 1.0, INF, -INF, 0.0, INF, NAN, -0.0])
    b[0, :8] = torch.tensor([1.0, NAN, 1.0, 2.0, 0.0, INF, NAN, 5.0])
    a[1, 40] = NAN  # a NaN past the first column of a row (and of its second tile)
    return a.to(torch.bfloat16), b.to(torch.bfloat16)


CASES = {
    "maximum(a, b)": (lambda x, y: maximum(x, y), torch.maximum),
    "maximum(b, a)": (lambda x, y: maximum(y, x), lambda a, b: torch.maximum(b, a)),
    "a + b": (lambda x, y: x + y, torch.add),
    "a - b": (lambda x, y: x - y, torch.sub),
    "a * b": (lambda x, y: x * y, torch.mul),
    "a / b": (lambda x, y: x / y, torch.div),
    "exp(a)": (lambda x, y: x.exp(), lambda a, b: torch.exp(a)),
    "sqrt(a)": (lambda x, y: x.sqrt(), lambda a, b: torch.sqrt(a)),
    "recip(a)": (lambda x, y: x.recip(), lambda a, b: torch.reciprocal(a)),
    "abs(a)": (lambda x, y: abs(x), lambda a, b: torch.abs(a)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_special_values_match_torch(name):
    dsl, reference = CASES[name]
    a, b = special_inputs()
    out = torch.zeros(SHAPE, dtype=torch.bfloat16)
    kernel_of(dsl)(a, b, out)
    expected = reference(a.float(), b.float()).to(torch.bfloat16)
    special = ~torch.isfinite(expected) | ~torch.isfinite(out)
    # NaN where torch has NaN, the same infinity where torch has one
    assert torch.equal(torch.isnan(out[special]), torch.isnan(expected[special])), name
    finite_or_inf = ~torch.isnan(expected)
    assert torch.equal(torch.isinf(out[finite_or_inf]), torch.isinf(expected[finite_or_inf])), name
    inf = torch.isinf(expected)
    assert torch.equal(out[inf], expected[inf]), name
    # ordinary values as close as the operator's bf16 accuracy
    ordinary = torch.isfinite(expected) & torch.isfinite(a) & torch.isfinite(b)
    torch.testing.assert_close(out[ordinary].float(), expected[ordinary].float(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize(
    "reduce, reference, out_block",
    [
        (lambda x: x.rowmax(), lambda a: a.amax(-1, keepdim=True), (1, 1)),
        (lambda x: x.colmax(), lambda a: a.amax(-2, keepdim=True), (1, 2)),
    ],
    ids=["rowmax", "colmax"],
)
def test_max_reductions_propagate_nan(reduce, reference, out_block):
    a, b = special_inputs()
    out_shape = (32, 32) if out_block == (1, 1) else (32, 64)
    out = torch.zeros(out_shape, dtype=torch.bfloat16)
    kernel_of(lambda x, y: reduce(x), out_block)(a, b, out)
    expected = reference(a.float())
    # the (R, 1) / (1, C) result sits in column / row 0 of its tiles
    got = out[:, :1] if out_block == (1, 1) else out[:1, :]
    assert torch.equal(torch.isnan(got), torch.isnan(expected))
    assert torch.isnan(got).any()
    finite = ~torch.isnan(expected)
    assert torch.equal(got[finite].float(), expected[finite].to(torch.bfloat16).float())
