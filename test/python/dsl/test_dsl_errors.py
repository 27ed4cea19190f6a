"""Every kind of bad input gets a KernelError naming this file, the offending line and
what to do. Each kernel marks its offending line with a `# <- name` comment."""

from __future__ import annotations

import pytest

from ttlang import (
    CircularBuffer,
    Program,
    TensorAccessor,
    TensorSpec,
    compute,
    datamovement,
    dma,
    fill_causal_mask,
    pykernel_gen,
)
from ttlang.dsl import operators
from ttlang.dsl.diagnostics import CompilerBug, KernelError

TILE = TensorSpec((32, 32))
BLOCK = TensorSpec((64, 64))


def line_of(marker: str) -> int:
    """The line of this file that carries the comment `# <- marker`."""
    with open(__file__) as source:
        for number, text in enumerate(source, start=1):
            if text.rstrip().endswith(f"# <- {marker}"):
                return number
    raise AssertionError(f"no line marked {marker}")


def compile_error(kernel, *tensors, error=KernelError):
    with pytest.raises(error) as info:
        kernel.frontend_module(*tensors)
    return info.value


def assert_located(err: KernelError, marker: str, *fragments: str) -> None:
    assert err.filename == __file__
    assert err.line == line_of(marker), str(err)
    text = str(err)
    for fragment in fragments:
        assert fragment in text, text
    # the snippet shows the offending source line
    assert f"# <- {marker}" in text


def test_shape_mismatch():
    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (1, 2), (2, 2)])
    def kernel(lhs, rhs, out):
        @compute()
        def body(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            l, r, o = lhs_cb.wait(), rhs_cb.wait(), out_cb.reserve()
            o.store(l + r)  # <- shape
            lhs_cb.pop(); rhs_cb.pop(); out_cb.push()

        return Program(body)(lhs, rhs, out)

    err = compile_error(kernel, BLOCK, BLOCK, BLOCK)
    assert_located(err, "shape", "shape mismatch", "(64, 64) and (32, 64)", "broadcast")


def test_matmul_inner_dimension_mismatch():
    @pykernel_gen(grid=(1, 1), block_factors=[(2, 1), (2, 2), (2, 2)])
    def kernel(lhs, rhs, out):
        @compute()
        def body(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            with lhs_cb.wait() as l, rhs_cb.wait() as r, out_cb.reserve() as o:
                o.store(l @ r)  # <- matmul

        return Program(body)(lhs, rhs, out)

    err = compile_error(kernel, BLOCK, BLOCK, BLOCK)
    assert_located(err, "matmul", "(64, 32) @ (64, 64)", "K extents must agree")


def test_store_shape_mismatch():
    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2), (1, 1)])
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as x_blk, out_cb.reserve() as o:
                o.store(x_blk.exp())  # <- store-shape

        return Program(body)(x, out)

    err = compile_error(kernel, BLOCK, BLOCK)
    assert_located(err, "store-shape", "cannot store a (64, 64) block into a (32, 32) block", "block_factors")


def test_tensor_not_tile_aligned():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):  # <- aligned
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TensorSpec((30, 64)), TILE)
    assert_located(err, "aligned", "tensor `x` has shape (30, 64)", "not tile-aligned", "pad")


def test_unknown_method():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as x_blk, out_cb.reserve() as o:
                o.store(x_blk.tanh())  # <- method

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "method", "blocks have no method `tanh`", "exp", "rowsum")


def test_unknown_cb_method():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            x_cb.front()  # <- cb-method

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "cb-method", "a CircularBuffer has no method `front`", "pop, push, reserve, wait")


def test_unknown_operator():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as x_blk, out_cb.reserve() as o:
                o.store(x_blk ** 2)  # <- operator

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "operator", "operator ** is not supported on blocks", "+ - * / @")


def test_thread_parameter_not_a_circular_buffer():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: int):  # <- parameter
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(
        err, "parameter", "parameter `out_cb` of thread body must be the CircularBuffer of tensor `out`",
        "annotated int",
    )


def test_loop_over_something_other_than_range():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for i in [0, 1]:  # <- loop
                pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "loop", "can only loop over range(...), not `[0, 1]`", "for i in range(n)")


def test_block_used_after_pop():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            x_blk = x_cb.wait()
            o = out_cb.reserve()
            x_cb.pop()
            o.store(x_blk.exp())  # <- after-pop
            out_cb.push()

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(
        err, "after-pop", f"block `x_blk` is used after x_cb.pop() at line {line_of('after-pop') - 1}",
        "before x_cb.pop()",
    )


def test_block_used_after_with_pops_it():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as x_blk:
                pass
            with out_cb.reserve() as o:
                o.store(x_blk)  # <- after-with

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "after-with", "block `x_blk` is used after x_cb.pop()")


def test_store_into_block_that_was_not_reserved():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as x_blk:
                x_blk.store(x_blk.exp())  # <- store

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(
        err, "store", "store needs a block from cb.reserve()", f"comes from x_cb.wait() at line {line_of('store') - 1}",
        "out_cb.reserve()",
    )


def test_grid_larger_than_the_device():
    @pykernel_gen(grid=(9, 8))  # <- grid
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "grid", "grid 9x8 is larger than the device's 8x8 cores")


def test_device_grid_is_configurable():
    @pykernel_gen(grid=(2, 2), device_grid=(1, 1))  # <- small-device
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "small-device", "grid 2x2 is larger than the device's 1x1 cores")


def test_dtypes_naming_no_tensor():
    @pykernel_gen(grid=(1, 1), dtypes={"q": "bfloat8_b"})  # <- dtypes-name
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(
        err, "dtypes-name", "dtypes names `q`, which is not one of the kernel's tensors (x, out)",
        'dtypes={"k": "bfloat8_b"}',
    )  # fmt: skip


def test_dtypes_with_a_dtype_ttnn_does_not_name():
    @pykernel_gen(grid=(1, 1), dtypes={"x": "bfp8"})  # <- dtypes-value
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "dtypes-value", "dtypes gives `x` the dtype 'bfp8', which is not one of bfloat16, float32, bfloat8_b")


def test_dma_in_compute_thread():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        x_acc = TensorAccessor(x)

        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 0], blk).wait()  # <- dma-compute

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "dma-compute", "dma() belongs in a @datamovement() thread")


def test_fill_causal_mask_in_compute_thread():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                fill_causal_mask(blk, 0, 0)  # <- mask-compute

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "mask-compute", "fill_causal_mask() belongs in a @datamovement() thread")


def test_fill_causal_mask_into_waited_block():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as blk:
                fill_causal_mask(blk, 0, 0)  # <- mask-wait

        return Program(reader)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "mask-wait", "fill_causal_mask fills a CB block taken with cb.reserve()")


def test_accessor_index_out_of_bounds():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        x_acc = TensorAccessor(x)

        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                dma(x_acc[0, 2], blk).wait()  # <- bounds

        return Program(reader)(x, out)

    err = compile_error(kernel, BLOCK, BLOCK)
    assert_located(err, "bounds", "index out of bounds: `x` has 2 tiles in dim 1", "count tiles")


def test_value_defined_in_loop_used_after_it():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            for i in range(2):
                with x_cb.wait() as x_blk:
                    y = x_blk.exp()
            with out_cb.reserve() as o:
                o.store(y)  # <- loop-local

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "loop-local", "`y` has no value here", "assign `y` before")


def test_accessor_of_a_non_tensor_in_the_kernel_function():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        acc = TensorAccessor(3)  # <- accessor

        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE)
    assert_located(err, "accessor", "TensorAccessor takes one of the kernel's tensor arguments")


def test_compiler_bug_is_reported_as_such_with_the_kernel_location(monkeypatch):
    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(operators, "unary", crash)

    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as x_blk, out_cb.reserve() as o:
                o.store(x_blk.exp())  # <- bug

        return Program(body)(x, out)

    err = compile_error(kernel, TILE, TILE, error=CompilerBug)
    assert err.location.filename == __file__
    assert err.location.line == line_of("bug")
    assert "internal compiler error: RuntimeError: boom" in str(err)
    assert "bug in ttlang, not in your kernel" in str(err)
