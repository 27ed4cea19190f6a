"""Wrong arguments to a kernel are KernelErrors at the author's line, saying what to pass
(issue 13): before, they leaked as AttributeError, TypeError, a torch RuntimeError after
the run, or failed only at launch."""

import sys

import pytest
import torch

from ttlang import CircularBuffer, Program, TensorAccessor, compute, datamovement, dma, pykernel_gen
from ttlang.dsl.diagnostics import KernelError


def scaled_copy(**options):
    @pykernel_gen(grid=(1, 1), **options)
    def scale(x, out, factor=2.0):
        x_acc, out_acc = TensorAccessor(x), TensorAccessor(out)

        @compute()
        def mul(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as a, out_cb.reserve() as o:
                o.store(a * factor)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()

        @datamovement()
        def writer(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with out_cb.wait() as blk:
                dma(blk, out_acc[0, 0]).wait()

        return Program(mul, reader, writer)(x, out)

    return scale


KERNEL = scaled_copy()
X = torch.ones(32, 32, dtype=torch.bfloat16)


def call_line() -> int:
    return sys._getframe(1).f_lineno + 1


def test_a_number_for_a_tensor():
    with pytest.raises(KernelError) as info:
        line = call_line()
        KERNEL(1.5, torch.zeros(32, 32, dtype=torch.bfloat16))
    assert "tensor parameter `x` got float" in info.value.message
    assert (info.value.filename, info.value.line) == (__file__, line)


def test_a_list_for_a_tensor_in_compile():
    with pytest.raises(KernelError) as info:
        line = call_line()
        KERNEL.compile(X, [[0.0] * 32] * 32)
    assert "tensor parameter `out` got list" in info.value.message
    assert info.value.line == line


def test_unknown_keyword_parameter():
    with pytest.raises(KernelError) as info:
        line = call_line()
        KERNEL(X, torch.zeros_like(X), scale=3.0)
    assert "unknown keyword parameter(s) scale" in info.value.message
    assert "factor" in info.value.hint
    assert info.value.line == line


@pytest.mark.parametrize(
    "output, words",
    [
        (torch.zeros(1, 32, dtype=torch.bfloat16).expand(32, 32), "is expanded"),
        (torch.zeros(32, 32, dtype=torch.bfloat16, requires_grad=True), "requires grad"),
    ],
)
def test_an_output_that_cannot_be_written(output, words):
    with pytest.raises(KernelError) as info:
        line = call_line()
        KERNEL(X, output)
    assert words in info.value.message
    assert info.value.line == line


def test_a_tensor_not_in_host_memory():
    with pytest.raises(KernelError) as info:
        line = call_line()
        KERNEL(torch.ones(32, 32, device="meta"), torch.zeros(32, 32, dtype=torch.bfloat16))
    assert "tensor `x` is on device meta; a run reads its tensors from host memory" in info.value.message
    assert "`x.cpu()`" in info.value.hint
    assert info.value.line == line
    KERNEL.compile(torch.ones(32, 32, device="meta"), torch.zeros(32, 32))  # a spec: fine


@pytest.mark.parametrize(
    "options, words",
    [
        ({"cb_buffers": 0}, "a CB holds at least one block"),
        ({"cb_buffers": 1.5}, "cb_buffers=1.5: a CB holds at least one block"),
        ({"fp32_dest_acc_en": "yes"}, "fp32_dest_acc_en='yes' is not a bool"),
        ({"math_approx_mode": 1}, "math_approx_mode=1 is not a bool"),
        ({"math_fidelity": "Ultra"}, "is not a math fidelity"),
        ({"device_grid": (100, 100)}, "is not a core grid the n150 has (its compute grid is 8x8)"),
        ({"num_outs": 0}, "at least one output"),
    ],
)
def test_impossible_options_are_rejected_at_the_decorator(options, words):
    with pytest.raises(KernelError) as info:

        @pykernel_gen(grid=(1, 1), **options)  # the decorator
        def kernel(x, out):
            pass

    assert words in info.value.message
    assert info.value.line == kernel_decorator_line()


def kernel_decorator_line() -> int:
    lines = open(__file__).read().splitlines()
    return next(n for n, text in enumerate(lines, 1) if "# the decorator" in text)


def test_the_l1_budget_error_carries_its_numbers():
    import bad_inputs
    from ttlang.dsl.diagnostics import L1BudgetError

    with pytest.raises(L1BudgetError) as info:
        bad_inputs.cbs_larger_than_l1()
    error = info.value
    assert error.bytes_needed == 2 * 2 * (64 * 64) * 2048  # two CBs of 2 blocks of 64x64 bf16 tiles
    assert error.bytes_available == 1364 * 1024
    assert [(cb.num_pages, cb.page_size) for cb in error.cbs] == [(8192, 2048), (8192, 2048)]
