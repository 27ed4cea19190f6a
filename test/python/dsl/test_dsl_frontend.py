"""Frontend unit tests: shape rules, run-time branches, helpers, and the smaller
errors of the Python subset (the lit tests in test/dsl pin the IR of the main forms)."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf

from ttlang import (
    CircularBuffer,
    Program,
    TensorSpec,
    compute,
    core_index,
    datamovement,
    full,
    pykernel_gen,
)
from ttlang.dialects import d2m
from ttlang.dsl.diagnostics import DSLError, KernelError
from ttlang.dsl.operators import broadcast_shape

TILE = TensorSpec((32, 32))


@pytest.mark.parametrize(
    "shapes, expected",
    [
        ([(64, 64), (64, 64)], (64, 64)),
        ([(64, 64), (64, 1)], (64, 64)),
        ([(1, 64), (64, 1)], (64, 64)),
        ([(64, 64), (1, 1)], (64, 64)),
        ([(2, 64, 32), (64, 32)], (2, 64, 32)),
    ],
)
def test_broadcast_shape(shapes, expected):
    assert broadcast_shape("+", shapes) == expected


def test_broadcast_rejects_unequal_extents():
    with pytest.raises(DSLError, match=r"got \(64, 64\) and \(32, 64\)"):
        broadcast_shape("+", [(64, 64), (32, 64)])


def pick(blk, exponentiate):
    """A helper whose compile-time branch returns early."""
    if exponentiate:
        return blk.exp()
    return blk.neg()


def compute_kernel(body_function):
    """A one-core, compute-only kernel running `body_function` as its thread."""

    @pykernel_gen(grid=(2, 1))
    def kernel(x, out):
        return Program(compute()(body_function))(x, out)

    return kernel


def ops_named(module, name):
    return [op for op in module.walk() if op.name == name]


def test_run_time_branch_carries_assigned_values_out():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            y = blk
            if core_index(0) == 0:
                y = pick(blk, True)
            else:
                y = pick(blk, False)
            o.store(y)

    module = compute_kernel(body).frontend_module(TILE, TILE)
    (branch,) = [op for op in module.walk() if isinstance(op, scf.IfOp)]
    assert [str(t) for t in branch.result_types] == ["tensor<1x1x!ttcore.tile<32x32, bf16>>"]
    then_ops = [op.name for op in branch.true_region.walk()]
    else_ops = [op.name for op in branch.false_region.walk()]
    assert "d2m.tile_exp" in then_ops and "d2m.tile_neg" not in then_ops
    assert "d2m.tile_neg" in else_ops and "d2m.tile_exp" not in else_ops
    (store,) = ops_named(module, "d2m.store")
    assert store.operands[1] is branch.results[0]


def test_loop_carried_block_must_keep_its_shape():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            acc = blk
            for i in range(2):
                acc = acc.rowsum()
            o.store(acc)

    with pytest.raises(KernelError, match=r"`acc` is a \(32, 32\) block before the loop but a \(32, 1\) block"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_compile_time_empty_range_compiles_nothing():
    """As Python runs no iteration of range(0), the frontend compiles none: the body may
    name what exists only when the trip count is a run-time index (here a CB that is None)."""
    absent = None

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            y = blk
            for _ in range(0):
                with absent.wait() as other:
                    y = y + other
            for _ in range(1):
                y = y.exp()
            o.store(y)

    module = compute_kernel(body).frontend_module(TILE, TILE)
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert [op.name for op in loop.body.walk() if op.name.startswith("d2m.tile_")] == ["d2m.tile_exp"]
    assert not ops_named(module, "d2m.tile_add")


def scaled(blk, factor=None):
    """A helper with an optional block argument."""
    if factor is not None:
        return blk * factor
    return blk


def test_none_test_of_a_block_is_compile_time():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            o.store(scaled(scaled(blk), blk))

    module = compute_kernel(body).frontend_module(TILE, TILE)
    assert not [op for op in module.walk() if isinstance(op, scf.IfOp)]
    assert len(ops_named(module, "d2m.tile_mul")) == 1


def test_fill_of_a_column_vector_broadcasts():
    """A (32, 1) fill (a running row max's start) takes one tile and broadcasts as a
    column, like a row reduction's result."""

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            o.store(blk - full((32, 1), -1.0))

    module = compute_kernel(body).frontend_module(TILE, TILE)
    (fill,) = ops_named(module, "d2m.tile_fill")
    assert "tensor<1x1x!ttcore.tile<32x32, bf16>>" in str(fill.parent_op())
    (bcast,) = ops_named(module, "d2m.tile_bcast")
    assert "col" in str(bcast)


def test_arithmetic_of_column_vectors_is_marked():
    """+, - and * of two (R, 1) blocks are marked d2m.column_vectors (only column 0 of
    their tiles is data); the same ops on full blocks, a column against a full block, a
    column and a number, and a division of columns are not."""

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            m, n = blk.rowmax(), blk.rowsum()
            columns = (m - n) * m + n  # marked: sub, mul, add
            other = columns / n - 1.0  # div, scalar sub: not FPU binaries
            o.store((blk - other) * blk + blk)  # broadcast sub, full-block mul and add

    module = compute_kernel(body).frontend_module(TILE, TILE)
    marked = [
        op.name for op in module.walk() if d2m.COLUMN_VECTORS_ATTR in op.attributes
    ]
    assert sorted(marked) == ["d2m.tile_add", "d2m.tile_mul", "d2m.tile_sub"]
    assert len(ops_named(module, "d2m.tile_sub")) == 2
    assert len(ops_named(module, "d2m.tile_mul")) == 2


def test_fill_needs_tile_multiples_or_one():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk, out_cb.reserve() as o:
            o.store(blk + full((32, 16), 1.0))

    with pytest.raises(KernelError, match=r"fill needs rows and columns that are multiples of 32, or 1"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_reductions_share_one_scaler_filled_at_thread_entry():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for i in range(2):
            with x_cb.wait() as blk, out_cb.reserve() as o:
                o.store(blk - blk.rowmax() + blk.rowsum())

    module = compute_kernel(body).frontend_module(TILE, TILE)
    (fill,) = ops_named(module, "d2m.tile_fill")
    scaler = fill.parent_op()
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert scaler.parent_block() is loop.parent_block()
    reductions = [op for op in module.walk() if op.name in ("d2m.tile_reduce_max", "d2m.tile_reduce_sum")]
    assert len(reductions) == 2
    assert all(r.parent_op().operands[1] is scaler.results[0] for r in reductions)


def test_with_and_explicit_pop_release_twice():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        with x_cb.wait() as blk:
            x_cb.pop()

    with pytest.raises(KernelError, match="released twice"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_pop_without_wait():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        x_cb.pop()

    with pytest.raises(KernelError, match=r"x_cb.pop\(\) has no x_cb.wait\(\) to release"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_wait_in_a_loop_popped_after_it():
    """The loop body's wait is released at the end of each iteration, so the pop after
    the loop has nothing left to release."""

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        for i in range(2):
            blk = x_cb.wait()
        x_cb.pop()

    with pytest.raises(KernelError, match=r"x_cb.pop\(\) has no x_cb.wait\(\) to release"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_unreleased_blocks_are_released_at_the_end_of_their_scope():
    """tt-lang leaves pops and pushes to the compiler: a block acquired and not released
    is released at the end of the loop body, branch or thread that acquired it."""

    async def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        o = out_cb.reserve()
        for i in range(2):
            blk = x_cb.wait()
        o.store(full((32, 32), 1.0))

    module = compute_kernel(body).frontend_module(TILE, TILE)
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert [op.name for op in loop.body.block.ops] == ["d2m.wait", "d2m.pop", "scf.yield"]
    (generic,) = [op for op in module.walk() if isinstance(op, d2m.GenericOp)]
    assert [op.name for op in generic.thread_regions[0].block.ops][-2:] == ["d2m.store", "d2m.push"]


def test_a_push_read_back_by_the_same_thread_is_a_value():
    """`o.store(s); out_cb.push(); s = out_cb.wait(); out_cb.pop()` (tt-lang's way to
    materialise a value) hands the stored value on without CB traffic, so `s` stays
    usable after the pop; the last push goes to the CB's consumer."""

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        x = x_cb.wait()
        o = out_cb.reserve()
        o.store(x.exp())
        out_cb.push()
        s = out_cb.wait()
        out_cb.pop()
        o = out_cb.reserve()
        o.store(s + x)
        out_cb.push()
        x_cb.pop()

    module = compute_kernel(body).frontend_module(TILE, TILE)
    names = [op.name for op in module.walk() if op.name.startswith("d2m.") and "tile" not in op.name]
    assert names == ["d2m.generic", "d2m.wait", "d2m.reserve", "d2m.store", "d2m.push", "d2m.pop"]
    (exp,) = ops_named(module, "d2m.tile_exp")
    (add,) = ops_named(module, "d2m.tile_add")
    assert add.parent_op().inputs[0] is exp.parent_op().results[0]


def test_a_block_of_another_threads_cb_is_not_usable_after_its_pop():
    """Only a thread's own pushes are read back as values: the reader refills x_cb
    after the pop."""

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        x = x_cb.wait()
        x_cb.pop()
        with out_cb.reserve() as o:
            o.store(x)

    with pytest.raises(KernelError, match=r"block `x` is used after x_cb.pop\(\)"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_a_kernel_local_cb_is_created_in_the_kernel_function():
    """CircularBuffer(shape) outside a kernel function (at import, or run at compile
    time in a thread) is an error that says where it belongs."""
    with pytest.raises(DSLError, match="created in a @pykernel_gen kernel function"):
        CircularBuffer((32, 32))

    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        scratch = CircularBuffer((32, 32))

    with pytest.raises(KernelError, match="created in a @pykernel_gen kernel function"):
        compute_kernel(body).frontend_module(TILE, TILE)


def test_compile_time_assert():
    def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
        assert 2 + 2 == 5, "arithmetic is broken"

    with pytest.raises(KernelError, match="assertion failed: arithmetic is broken"):
        compute_kernel(body).frontend_module(TILE, TILE)


@pytest.mark.parametrize(
    "statement, message",
    [
        ("while True:\n            pass", "`while` loops are not supported"),
        ("x = core_index(2)", r"core_index\(dim\) takes 0 \(rows\) or 1 \(columns\)"),
        ("x = undefined_name + 1", "name `undefined_name` is not defined"),
        ("x = core_index(0) / 2", "use // for integer division"),
    ],
)
def test_unsupported_python(tmp_path, statement, message):
    """Threads written to a file, so the frontend can read their source."""
    source = tmp_path / "kernel_under_test.py"
    source.write_text(
        "from ttlang import *\n"
        "@pykernel_gen(grid=(1, 1))\n"
        "def kernel(x, out):\n"
        "    @datamovement()\n"
        "    def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):\n"
        f"        {statement}\n"
        "    return Program(reader)(x, out)\n"
    )
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(KernelError, match=message) as info:
        namespace["kernel"].frontend_module(TILE, TILE)
    assert info.value.filename == str(source)
    assert info.value.line == 6


def test_block_arithmetic_belongs_in_compute():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.reserve() as blk:
                y = blk.exp()

        return Program(reader)(x, out)

    with pytest.raises(KernelError, match=r"\.exp\(\) belongs in a @compute\(\) thread"):
        kernel.frontend_module(TILE, TILE)


def test_threads_follow_program_order_and_ops_carry_locations():
    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @datamovement()
        def reader(x_cb: CircularBuffer, out_cb: CircularBuffer):
            pass

        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as blk, out_cb.reserve() as o:
                o.store(blk.exp())

        return Program(reader, body)(x, out)

    module = kernel.frontend_module(TILE, TILE)
    (generic,) = ops_named(module, "d2m.generic")
    assert generic.thread_kinds == [d2m.ThreadType.DATAMOVEMENT, d2m.ThreadType.COMPUTE]
    (store,) = ops_named(module, "d2m.store")
    assert store.location.filename.data == __file__
    assert store.location.line.data == kernel.function.__code__.co_firstlineno + 9


def test_verbose_thread_prints_its_ir(capsys):
    """tt-lang's `@compute(verbose=True)`: the thread's stage-1 IR on stdout."""

    @pykernel_gen(grid=(1, 1))
    def kernel(x, out):
        @compute(verbose=True)
        async def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as blk, out_cb.reserve() as o:
                o.store(blk.exp())

        return Program(body)(x, out)

    kernel.frontend_module(TILE, TILE)
    printed = capsys.readouterr().out
    assert printed.startswith("// thread body (compute)")
    assert "d2m.tile_exp" in printed


def test_a_block_read_back_is_reserved_again():
    """After `out_cb.wait()` reads a push back, the reserved block is the thread's again:
    stored into again it is pushed (one reserve, one store, one push in the IR); a new
    reserve instead leaves it unused, and it is dropped."""

    def store_again(x_cb: CircularBuffer, out_cb: CircularBuffer):
        x = x_cb.wait()
        o = out_cb.reserve()
        o.store(x.exp())
        out_cb.push()
        y = out_cb.wait()
        o.store(y.sqrt())
        out_cb.push()
        x_cb.pop()

    def reserve_anew(x_cb: CircularBuffer, out_cb: CircularBuffer):
        x = x_cb.wait()
        o = out_cb.reserve()
        o.store(x.exp())
        out_cb.push()
        y = out_cb.wait()
        out_cb.pop()
        o = out_cb.reserve()
        o.store(y.sqrt())
        out_cb.push()
        x_cb.pop()

    for body in (store_again, reserve_anew):
        module = compute_kernel(body).frontend_module(TILE, TILE)
        names = [op.name for op in module.walk() if op.name.startswith("d2m.") and "tile" not in op.name]
        assert names == ["d2m.generic", "d2m.wait", "d2m.reserve", "d2m.store", "d2m.push", "d2m.pop"], body
        (sqrt,) = ops_named(module, "d2m.tile_sqrt")
        (store,) = ops_named(module, "d2m.store")
        assert store.operands[1] is sqrt.parent_op().results[0]


@pytest.mark.parametrize(
    "call, message",
    [
        ("reduce_sum(blk.rowsum(), blk, dim=1)", r"reduce_sum\(\.\.\., dim=1\) reduces an axis of 1"),
        ("reduce_max(blk, blk, dim=2)", r"reduce_max\(\.\.\., dim=2\): dim is 1"),
        ("reduce_sum(blk)", r"bad call to reduce_sum\(\): missing a required argument: 'scaler'"),
        ("bcast(blk, dim=3)", r"bcast\(\.\.\., dim=3\): dim is 1"),
        ("exp(2.0)", r"exp\(\) takes a block, not float 2.0"),
    ],
)
def test_tt_lang_operator_misuse(tmp_path, call, message):
    """tt-lang's free functions with bad arguments: KernelErrors at the call's line."""
    source = tmp_path / "tt_lang_kernel.py"
    source.write_text(
        "from ttlang.d2m_api import *\n"
        "@pykernel_gen(grid=(1, 1))\n"
        "def kernel(x, out):\n"
        "    @compute()\n"
        "    async def body(x_cb: CircularBuffer, out_cb: CircularBuffer):\n"
        "        with x_cb.wait() as blk, out_cb.reserve() as o:\n"
        f"            o.store({call})\n"
        "    return Program(body)(x, out)\n"
    )
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(KernelError, match=message) as info:
        namespace["kernel"].frontend_module(TILE, TILE)
    assert info.value.line == 7
