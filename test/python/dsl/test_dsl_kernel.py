"""The kernel object: compile cache, debug knobs, compile-time parameters, compute
configuration, and how pipeline failures reach the author. The driver is replaced by a
recording stub so these tests exercise the frontend's side of the contract only."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import ttlang.driver
from ttlang import CircularBuffer, Program, TensorSpec, compute, pykernel_gen
from ttlang.driver import CompileError
from ttlang.dsl.diagnostics import CompilerBug, KernelError

TILE = TensorSpec((32, 32))


@dataclass
class StubArtifact:
    module_text: str
    runs: list = field(default_factory=list)

    @property
    def final_ir(self) -> str:
        return "// final IR"

    def run(self, tensors):
        self.runs.append(tensors)


@pytest.fixture
def driver(monkeypatch):
    """Replaces the driver; records every module it is given and the options."""
    calls = []

    def compile_module(module, **options):
        calls.append((module, options))
        return StubArtifact(str(module))

    monkeypatch.setattr(ttlang.driver, "compile_module", compile_module)
    for knob in ("TTLANG_INITIAL_MLIR", "TTLANG_FINAL_MLIR", "TTLANG_VERBOSE_PASSES", "TTLANG_COMPILE_ONLY"):
        monkeypatch.delenv(knob, raising=False)
    return calls


def make_exp_kernel(**decorator_options):
    @pykernel_gen(grid=(1, 1), **decorator_options)
    def exp_kernel(x, out, scale=1.0):
        @compute()
        def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as blk, out_cb.reserve() as o:
                o.store((blk * scale).exp())

        return Program(body)(x, out)

    return exp_kernel


def test_compile_is_cached_by_shapes_dtypes_and_parameters(driver):
    kernel = make_exp_kernel()
    first = kernel.compile(TILE, TILE)
    assert kernel.compile(TILE, TILE) is first
    assert len(driver) == 1
    kernel.compile(TensorSpec((64, 64)), TensorSpec((64, 64)))
    kernel.compile(TensorSpec((32, 32), "f32"), TensorSpec((32, 32), "f32"))
    kernel.compile(TILE, TILE, scale=2.0)
    assert len(driver) == 4
    assert "d2m.tile_mul_scalar" in str(driver[-1][0]) and "2.000000e+00" in str(driver[-1][0])


def test_call_compiles_once_and_runs_every_time(driver):
    kernel = make_exp_kernel()
    kernel(TILE, TILE)
    kernel(TILE, TILE)
    artifact = kernel.compile(TILE, TILE)
    assert len(driver) == 1
    assert len(artifact.runs) == 2


def test_compile_only_returns_the_artifact_without_running(driver, monkeypatch):
    monkeypatch.setenv("TTLANG_COMPILE_ONLY", "1")
    artifact = make_exp_kernel()(TILE, TILE)
    assert isinstance(artifact, StubArtifact)
    assert artifact.runs == []


def test_initial_and_final_mlir_are_written(driver, monkeypatch, tmp_path):
    initial, final = tmp_path / "initial.mlir", tmp_path / "final.mlir"
    monkeypatch.setenv("TTLANG_INITIAL_MLIR", str(initial))
    monkeypatch.setenv("TTLANG_FINAL_MLIR", str(final))
    make_exp_kernel().compile(TILE, TILE)
    assert "func.func @exp_kernel" in initial.read_text()
    assert "d2m.tile_exp" in initial.read_text()
    assert final.read_text() == "// final IR\n"


def test_verbose_passes_reaches_the_driver(driver, monkeypatch):
    monkeypatch.setenv("TTLANG_VERBOSE_PASSES", "1")
    make_exp_kernel().compile(TILE, TILE)
    assert driver[0][1] == {"verbose_passes": True}


def test_keyword_parameters_are_compile_time_constants(driver):
    module = make_exp_kernel().frontend_module(TILE, TILE, scale=0.25)
    assert "d2m.tile_mul_scalar" in str(module) and "2.500000e-01" in str(module)


def test_keyword_parameter_must_be_a_number(driver):
    with pytest.raises(KernelError, match="kernel parameter `scale` is str"):
        make_exp_kernel().frontend_module(TILE, TILE, scale="big")


def test_compute_config_reaches_the_kernel_function(driver):
    kernel = make_exp_kernel(math_fidelity="HiFi4", fp32_dest_acc_en=True, math_approx_mode=True, dst_full_sync_en=True)
    text = str(kernel.frontend_module(TILE, TILE))
    assert (
        'ttcore.compute_config = {math_fidelity = "HiFi4", fp32_dest_acc_en = true, '
        "math_approx_mode = true, dst_full_sync_en = true}"
    ) in text


def test_float32_tensors_get_f32_tiles(driver):
    text = str(make_exp_kernel().frontend_module(TensorSpec((32, 32), "f32"), TensorSpec((32, 32), "f32")))
    assert "memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.memory_space<dram>>" in text


def test_a_pass_rejecting_an_op_names_the_kernel_line(monkeypatch):
    """The frontend locates every op it builds, so a pass error points at the source."""

    def reject_the_exp(module, **options):
        exp = next(op for op in module.walk() if op.name == "d2m.tile_exp")
        raise CompileError("d2m-some-pass", "cannot lower this exp", exp.parent_op())

    monkeypatch.setattr(ttlang.driver, "compile_module", reject_the_exp)
    kernel = make_exp_kernel()
    with pytest.raises(KernelError) as info:
        kernel.compile(TILE, TILE)
    source_line = next(
        n for n, text in enumerate(open(__file__), start=1) if "o.store((blk * scale).exp())" in text
    )
    assert info.value.filename == __file__
    assert info.value.line == source_line
    assert "cannot lower this exp" in str(info.value) and "d2m-some-pass" in str(info.value)


def test_a_crash_in_the_pipeline_is_a_compiler_bug_at_the_kernel(monkeypatch):
    def crash(module, **options):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(ttlang.driver, "compile_module", crash)
    with pytest.raises(CompilerBug, match="internal compiler error: ZeroDivisionError: oops"):
        make_exp_kernel().compile(TILE, TILE)


# ------------------------------------------------------- tt-lang's decorator options


def kernel_line(function_name: str, text: str) -> int:
    """The line of this file holding `text` inside the function `function_name`."""
    import inspect

    lines, first = inspect.getsourcelines(globals()[function_name])
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize(
    "options, marker, message",
    [
        ({"kernel_source_mode": "store"}, "kernel_source_mode", "@pykernel_gen has no option `kernel_source_mode`"),
        ({"tiled": False}, "tiled", "tiled=False (row-major tensors) is not supported"),
        ({"ttnn_interop": "yes"}, "ttnn_interop", "ttnn_interop takes True or False"),
        ({"memory_space": "SRAM"}, "memory_space", "memory_space='SRAM' is not supported"),
        ({"iterator_types": ["parallel", "parallel"]}, "iterator_types", "iterator_types needs indexing_maps"),
        (
            {"indexing_maps": [lambda i, j: (i,)] * 2},
            "indexing_maps",
            "must return one loop dim or int per dim of the tensor",
        ),
        (
            {"indexing_maps": [lambda i, j: (i, j)] * 2, "iterator_types": ["parallel", "sideways"]},
            "iterator_types",
            'iterator_types must give "parallel" or "reduction" for each of the 2 loop dims',
        ),
        (
            {"indexing_maps": [lambda i, j: (i, j)] * 2, "block_factors": [1, 1, 1]},
            "block_factors",
            "block_factors (1, 1, 1) gives 3 loop dims, but the indexing maps take 2",
        ),
    ],
    ids=["unknown", "tiled", "ttnn_interop", "memory_space", "iterators_alone", "map", "iterator_kind", "factors"],
)
def test_options_we_cannot_honour_are_kernel_errors_at_the_decorator(options, marker, message):
    """Raised when the decorator runs, or (for what depends on the tensors) when the
    kernel compiles; either way located at the decorator."""
    with pytest.raises(KernelError) as info:
        decorated_with(options).frontend_module(TILE, TILE)
    assert info.value.filename == __file__
    assert info.value.line == kernel_line("decorated_with", "@pykernel_gen(")
    assert message in str(info.value)


def decorated_with(options):
    @pykernel_gen(grid=(1, 1), **options)
    def copy(x, out):
        return Program()(x, out)

    return copy


def test_grid_is_required():
    with pytest.raises(KernelError, match=r"needs grid=\(rows, cols\)"):

        @pykernel_gen(block_factors=[(1, 1), (1, 1)])
        def no_grid(x, out):
            return Program()(x, out)


def test_tt_lang_options_that_change_nothing_are_accepted(driver):
    """memory_space="DRAM" (tensors are in DRAM and CBs in L1 either way), tiled=True
    and ttnn_interop (the target is TTLANG_TARGET's) compile as without them."""
    make_exp_kernel(memory_space="DRAM", tiled=True, ttnn_interop=True)(TILE, TILE)
    make_exp_kernel()(TILE, TILE)
    with_options, without = (module for module, _ in driver)
    assert str(with_options) == str(without)


def test_callable_grid_and_block_factors_fill_kernel_parameters(driver):
    """tt-lang's callables get the kernel's arguments; parameters named grid and
    block_factors receive the resolved values."""
    seen = {}

    @pykernel_gen(
        grid=lambda x, out: (x.shape[0] // 64, 1),
        block_factors=lambda x, out: [(2, 1), (2, 1)],
    )
    def kernel(x, out, grid=None, block_factors=None):
        seen.update(grid=grid, block_factors=block_factors)

        @compute()
        async def body(x_cb: CircularBuffer, out_cb: CircularBuffer):
            with x_cb.wait() as blk, out_cb.reserve() as o:
                o.store(blk)

        return Program(body)(x, out)

    spec = TensorSpec((128, 32))
    kernel(spec, spec)
    assert seen == {"grid": (2, 1), "block_factors": ((2, 1), (2, 1))}
    ((module, _),) = driver
    text = str(module)
    assert "grid = #ttcore.grid<2x1>" in text
    assert "!d2m.cb<memref<2x1x!ttcore.tile<32x32, bf16>, #ttcore.memory_space<l1>>>" in text


def test_indexing_maps_give_each_tensor_its_block(driver):
    """With indexing_maps, block_factors are per iteration dim: a matmul's
    (m, k), (k, n) -> (m, n) maps with factors (m, n, k) = (2, 1, 3) make blocks of
    2x3, 3x1 and 2x1 tiles."""

    @pykernel_gen(
        grid=(1, 1),
        block_factors=[2, 1, 3],
        indexing_maps=[lambda m, n, k: (m, k), lambda m, n, k: (k, n), lambda m, n, k: (m, n)],
        iterator_types=["parallel", "parallel", "reduction"],
    )
    def matmul(lhs, rhs, out):
        @compute()
        async def mm(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            with lhs_cb.wait() as a, rhs_cb.wait() as b, out_cb.reserve() as o:
                o.store(a @ b)

        return Program(mm)(lhs, rhs, out)

    matmul(TensorSpec((64, 96)), TensorSpec((96, 32)), TensorSpec((64, 32)))
    ((module, _),) = driver
    text = str(module)
    for tiles in ("2x3", "3x1", "2x1"):
        assert f"!d2m.cb<memref<{tiles}x!ttcore.tile" in text
    assert 'iterator_types = [#ttcore.iterator_type<parallel>, #ttcore.iterator_type<parallel>, #ttcore.iterator_type<reduction>]' in text
