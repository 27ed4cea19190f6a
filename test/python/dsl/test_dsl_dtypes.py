"""The `dtypes` option (device formats by tensor name, ttnn's dtype names): where it puts
bfp8_b in the IR, and the KernelError for a name or dtype it cannot apply."""

from __future__ import annotations

import pytest

from ttlang import CircularBuffer, Program, TensorSpec, compute, pykernel_gen
from ttlang.dsl.diagnostics import KernelError

BLOCK = TensorSpec((64, 64))


def line_of(marker: str) -> int:
    """The line of this file that carries the comment `# <- marker`."""
    with open(__file__) as source:
        for number, text in enumerate(source, start=1):
            if text.rstrip().endswith(f"# <- {marker}"):
                return number
    raise AssertionError(f"no line marked {marker}")


def add_kernel(dtypes):
    @pykernel_gen(
        grid=(1, 1),
        block_factors=[(2, 2)] * 3,
        dtypes=dtypes,  # <- dtypes
    )
    def add(lhs, rhs, out):
        @compute()
        def body(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            with lhs_cb.wait() as l, rhs_cb.wait() as r, out_cb.reserve() as o:
                o.store(l + r)

        return Program(body)(lhs, rhs, out)

    return add


def test_a_bfp8_tensor_is_bfp8_in_dram_and_its_cb_and_bf16_to_compute():
    module = str(add_kernel({"lhs": "bfloat8_b"}).frontend_module(BLOCK, BLOCK, BLOCK))
    assert "memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<dram>>" in module
    assert "!d2m.cb<memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>" in module
    # The wait hands compute the tiles as the unpacker does: bf16.
    assert "-> tensor<2x2x!ttcore.tile<32x32, bf16>>" in module
    assert "tensor<2x2x!ttcore.tile<32x32, bfp8_b>>" not in module


@pytest.mark.parametrize(
    "dtypes, fragment",
    [
        ({"q": "bfloat8_b"}, "dtypes names `q`, which is not one of the kernel's tensors (lhs, rhs, out)"),
        ({"lhs": "bfp8"}, "dtypes gives `lhs` the dtype 'bfp8', which is not one of bfloat16, float32, bfloat8_b"),
    ],
)
def test_a_dtype_it_cannot_apply_is_a_kernel_error_at_the_option(dtypes, fragment):
    with pytest.raises(KernelError) as info:
        add_kernel(dtypes).frontend_module(BLOCK, BLOCK, BLOCK)
    error = info.value
    assert error.filename == __file__ and error.line == line_of("dtypes"), str(error)
    assert fragment in str(error) and 'dtypes={"k": "bfloat8_b"}' in str(error)
