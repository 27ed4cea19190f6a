"""bfp8_b tensors end to end (`@pykernel_gen(..., dtypes={"a": "bfloat8_b"})`): a matmul
and eltwise ops on the emulator against torch on the inputs quantized the same way
(`tiles.as_stored`, tt-metal's host packer), and the CB/L1 accounting of 1088-byte tiles.

Tolerances: with identically quantized inputs the remaining error is the kernel's own
bf16 rounding (DST, and the bf16 CBs it packs to), as in the bf16 tests; where the
output is bfp8_b, one magnitude step of its face row (2^(exponent - 6)) more, as the
packer rounds to the group's shared exponent."""

from __future__ import annotations

import e2e_kernels as kernels
import pytest
import torch

from examples import matmul as matmul_example
from ttlang import CircularBuffer, Program, TensorSpec, compute, pykernel_gen
from ttlang.dsl.diagnostics import KernelError
from ttlang.runtime import tiles


def assert_within_a_step_of_the_face_row(out: torch.Tensor, exact: torch.Tensor) -> None:
    """Each element of a bfp8_b output within one magnitude step, 2^(e - 6), of `exact`,
    e its face row's shared exponent: the exponent of the row's largest value, which the
    packer's first rounding (to E8M6) may have carried up to the next power of two."""
    rows = torch.maximum(tiles.tilize(out).abs(), tiles.tilize(exact).abs()).reshape(-1, 16)
    step = torch.exp2(torch.floor(torch.log2(rows.amax(dim=1).clamp(min=2**-100))) - 6)
    error = (tiles.tilize(out) - tiles.tilize(exact)).reshape(-1, 16).abs()
    assert bool((error <= step[:, None]).all()), "an element is more than one step of its face row off"


def mean_abs(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a.double() - b.double()).abs().mean().item()


def test_matmul_of_bfp8_inputs_matches_torch_on_the_quantized_inputs():
    generator = torch.Generator().manual_seed(0)
    m = n = matmul_example.GRID * matmul_example.BLOCK * 32
    k = 4 * matmul_example.BLOCK * 32
    a = torch.randn(m, k, generator=generator).to(torch.bfloat16)
    b = torch.randn(k, n, generator=generator).to(torch.bfloat16)
    out = torch.zeros(m, n, dtype=torch.bfloat16)
    kernel = matmul_example.matmul_kernel({"a": "bfloat8_b", "b": "bfloat8_b"})
    program = kernel.compile(a, b, out).program
    assert [(buf.name, buf.data_format, buf.page_size) for buf in program.buffers] == [
        ("a", "bfp8_b", 1088), ("b", "bfp8_b", 1088), ("out", "bf16", 2048)
    ]  # fmt: skip
    assert [(cb.data_format, cb.page_size) for cb in program.cbs[:3]] == [("bfp8_b", 1088)] * 2 + [("bf16", 2048)]
    kernel(a, b, out)
    # Every core reads its row of a and column of b once: 4 K blocks of 2x2 + 2x2 tiles,
    # 1088 bytes each over the NoC.
    cores = matmul_example.GRID**2
    assert kernel.compile(a, b, out).perf().dram_bytes_read == cores * 4 * 8 * 1088
    expected = tiles.as_stored(a, "bfp8_b") @ tiles.as_stored(b, "bfp8_b")
    # |out| ~ 16 (sqrt(k)); four bf16 roundings of the loop-carried sum, as examples/matmul.py's.
    kernels.assert_close(out, expected, max_abs=0.5, min_pcc=0.9999)
    # The kernel saw the quantized values, not the bf16 ones: its error against the
    # unquantized product is the quantization's (~1/128 relative per input).
    assert mean_abs(out, expected) < 0.5 * mean_abs(out, a.float() @ b.float())


def test_eltwise_on_bfp8_inputs_matches_torch_on_the_quantized_inputs():
    shape = kernels.tensor_shape()
    x = kernels.random_bf16(shape, -4.0, 4.0, seed=1)
    y = kernels.random_bf16(shape, -4.0, 4.0, seed=2)
    out = torch.zeros(shape, dtype=torch.bfloat16)
    kernel = kernels.binary_kernel(lambda a, b: a * b + a, dtypes={"lhs": "bfloat8_b", "rhs": "bfloat8_b"})
    kernel(x, y, out)
    xq, yq = tiles.as_stored(x, "bfp8_b"), tiles.as_stored(y, "bfp8_b")
    # x*y rounded to bf16 in DST, then + x rounded again: |values| < 20, 2 ulps at 16.
    kernels.assert_close(out, xq * yq + xq, max_abs=0.25, min_pcc=0.9999)
    assert mean_abs(out, xq * yq + xq) < 0.5 * mean_abs(out, x.float() * y.float() + x.float())


def test_eltwise_writing_a_bfp8_output_rounds_to_its_face_rows_exponents():
    shape = kernels.tensor_shape()
    x = kernels.random_bf16(shape, -4.0, 4.0, seed=3)
    y = kernels.random_bf16(shape, -4.0, 4.0, seed=4)
    out = torch.zeros(shape, dtype=torch.float32)
    kernels.binary_kernel(lambda a, b: a + b, dtypes={"out": "bfloat8_b"})(x, y, out)
    exact = (x.float() + y.float()).to(torch.bfloat16).float()  # DST holds bf16
    # On the bfp8_b grid: writing it again changes nothing.
    assert torch.equal(tiles.as_stored(out, "bfp8_b"), out)
    assert_within_a_step_of_the_face_row(out, exact)
    kernels.assert_close(out, exact, max_abs=8.0 / 64, min_pcc=0.9999)  # |x + y| < 8


BIG = (16, 8)  # tiles per block


def test_the_l1_budget_counts_1088_byte_bfp8_tiles():
    specs = [TensorSpec((BIG[0] * 32, BIG[1] * 32))] * 3
    # 3 CBs x 2 blocks x 128 tiles: 1536 KiB of bf16 does not fit; 816 KiB of bfp8_b does.
    with pytest.raises(KernelError, match="circular buffers need 1536 KiB"):
        kernels.binary_kernel(lambda a, b: a + b, block=BIG, grid=(1, 1)).compile(*specs)
    bfp8 = {"lhs": "bfloat8_b", "rhs": "bfloat8_b", "out": "bfloat8_b"}
    kernel = kernels.binary_kernel(lambda a, b: a + b, block=BIG, grid=(1, 1), dtypes=bfp8)
    program = kernel.compile(*specs).program
    assert sum(cb.num_pages * cb.page_size for cb in program.cbs) == 3 * 2 * 128 * 1088


def test_implicit_operands_read_and_write_bfp8_tiles():
    """Generated readers and writers (d2m-generate-datamovement) move bfp8_b pages too:
    out = a * b + a with a, b and out stored as bfp8_b, 2x2 cores."""

    @compute()
    def apply(a_cb: CircularBuffer, b_cb: CircularBuffer, out_cb: CircularBuffer):
        with a_cb.wait() as x, b_cb.wait() as y, out_cb.reserve() as o:
            o.store(x * y + x)

    bfp8 = {"a": "bfloat8_b", "b": "bfloat8_b", "out": "bfloat8_b"}

    @pykernel_gen(grid=(2, 2), block_factors=[(1, 2)] * 3, dtypes=bfp8)
    def fma(a, b, out):
        return Program(apply)(a, b, out)

    shape = (64, 128)
    a = kernels.random_bf16(shape, -2.0, 2.0, seed=5)
    b = kernels.random_bf16(shape, -2.0, 2.0, seed=6)
    out = torch.zeros(shape)
    fma(a, b, out)
    aq, bq = tiles.as_stored(a, "bfp8_b"), tiles.as_stored(b, "bfp8_b")
    exact = ((aq * bq).to(torch.bfloat16).float() + aq).to(torch.bfloat16).float()  # DST holds bf16
    assert torch.equal(tiles.as_stored(out, "bfp8_b"), out)  # on the bfp8_b grid
    assert_within_a_step_of_the_face_row(out, exact)
