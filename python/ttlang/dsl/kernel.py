"""`@pykernel_gen`: the decorated kernel object, its compile cache and debug knobs.

    @pykernel_gen(grid=(1, 1), block_factors=[(1, 1), (1, 1), (1, 1)])
    def add(lhs, rhs, out): ...

    add(a, b, c)                  # compile (cached) and run; the result lands in c
    artifact = add.compile(a, b, c)   # IR after every stage, C++ sources, program, .run()
    module = add.frontend_module(a, b, c)  # the stage-1 IR alone

Debug knobs (environment variables, as tt-lang has them):
- `TTLANG_INITIAL_MLIR=path`: write the frontend IR there.
- `TTLANG_FINAL_MLIR=path`: write the IR after the last stage there.
- `TTLANG_VERBOSE_PASSES=1`: print the IR after every stage.
- `TTLANG_COMPILE_ONLY=1`: `kernel(*tensors)` compiles and returns the artifact
  without running it.
"""

from __future__ import annotations

import hashlib
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from types import FunctionType
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from ttlang.device import DEFAULT_DEVICE, DeviceDescriptionError, load_device
from ttlang.dsl.checks import check_call, check_decorator
from ttlang.dsl.diagnostics import (
    CompilerBug,
    KernelError,
    L1BudgetError,
    SourceLocation,
    definition_location,
    parse_function,
)
from ttlang.dialects.d2m import GenericOp
from ttlang.dsl.frontend import DATA_TYPES, TensorSpec, build_module, decorator_keyword
from ttlang.dsl.options import MEMORY_SPACES, KernelOptions, OptionError, freeze
from ttlang.runtime import ttnn_tensors
from ttlang.runtime.program import ComputeConfig, MathFidelity


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0", "false", "False")


def _located_compile_error(error, kernel_location: SourceLocation) -> KernelError | CompilerBug:
    """A pipeline failure as a kernel error (or compiler bug) at the kernel line the
    failing op came from (the frontend locates every op it builds)."""
    location = kernel_location
    message = str(error)
    if error.location:
        filename, line, column = error.location.rsplit(":", 2)
        location = SourceLocation(filename, int(line), int(column) - 1)
        message = message.removeprefix(f"{error.location}: ")
    # "error in pass 'x': ..." -> "in pass 'x': ...": the exception says what kind it is.
    message = message.removeprefix("internal compiler error ").removeprefix("error ")
    if error.is_compiler_bug:
        return CompilerBug(message, location)
    if error.budget is not None:
        budget = error.budget
        return L1BudgetError(message, location, budget.cbs, budget.bytes_needed, budget.bytes_available)
    return KernelError(message, location)


class Kernel:
    """A `@pykernel_gen` kernel: compiles on first use per argument signature."""

    def __init__(self, function: FunctionType, options: KernelOptions):
        self.function = function
        self.options = options
        self.__name__ = function.__name__
        self.__doc__ = function.__doc__
        self._source_hash = hashlib.sha256(inspect.getsource(function).encode()).hexdigest()
        self._cache: dict[tuple, Any] = {}

    def cache_key(self, tensors: Sequence[Any], params: dict[str, Any], options: KernelOptions) -> tuple:
        """What a compilation depends on: source, argument shapes and dtypes, keyword
        parameters and (resolved) options."""
        signature = tuple((tuple(t.shape), DATA_TYPES.get(str(t.dtype), str(t.dtype))) for t in tensors)
        return (self._source_hash, signature, tuple(sorted(params.items())), options)

    def _resolve(
        self, tensors: Sequence[Any], params: dict[str, Any]
    ) -> tuple[list[Any], KernelOptions, dict[str, Any]]:
        """One call's arguments checked at its call site, and what compiling takes of
        them: the tensors (ttnn tensors as TensorSpecs), the options for this call
        (callable grid/block_factors evaluated), and the keyword parameters with
        tt-lang's injected ones: a kernel parameter named `grid` or `block_factors`
        gets the option's (resolved) value."""
        check_call(self.function, tensors, params, self.options.num_outs, running=False)
        tensors = [_described(t) for t in tensors]
        try:
            options = self.options.resolved(tensors, params)
        except OptionError as error:
            raise option_error(self.function, error) from None
        parameters = inspect.signature(self.function).parameters
        injected = {"grid": options.grid, "block_factors": options.block_factors}
        params = {
            **{name: value for name, value in injected.items() if name in parameters},
            **params,
        }
        return tensors, options, params

    def frontend_module(self, *tensors: Any, **params: Any) -> ModuleOp:
        """The stage-1 IR for tensors like `tensors` (torch tensors or TensorSpecs)."""
        tensors, options, params = self._resolve(tensors, params)
        return self._frontend_module(tensors, params, options)

    def _frontend_module(self, tensors, params, options: KernelOptions) -> ModuleOp:
        try:
            return build_module(self.function, tensors, params, options)
        except (KernelError, CompilerBug) as error:
            raise error.with_traceback(None) from None

    def compile(self, *tensors: Any, **params: Any):
        """Compiles for tensors like `tensors`; returns the driver's artifact (cached),
        which runs when called with tensors: `compiled(a, b, out)`."""
        tensors, options, params = self._resolve(tensors, params)
        key = self.cache_key(tensors, params, options)
        if key not in self._cache:
            self._cache[key] = self._compile(tensors, params, options)
        return self._cache[key]

    def _compile(self, tensors: Sequence[Any], params: dict[str, Any], options: KernelOptions):
        module = self._frontend_module(tensors, params, options)
        initial_path = os.environ.get("TTLANG_INITIAL_MLIR")
        if initial_path:
            with open(initial_path, "w") as file:
                file.write(f"{module}\n")
        from ttlang.driver import CompileError, compile_module  # imports every stage

        try:
            artifact = compile_module(module, verbose_passes=_flag("TTLANG_VERBOSE_PASSES"))
        except CompileError as error:
            raise _located_compile_error(error, definition_location(self.function)) from None
        except Exception as error:
            bug = CompilerBug(f"{type(error).__name__}: {error}", definition_location(self.function))
            raise bug.with_traceback(None) from error
        final_path = os.environ.get("TTLANG_FINAL_MLIR")
        if final_path:
            with open(final_path, "w") as file:
                file.write(f"{artifact.final_ir}\n")
        return artifact

    def __call__(self, *tensors: Any, **params: Any):
        """Compiles (cached) and runs on the default target, writing the outputs into
        the given tensors. With TTLANG_COMPILE_ONLY set, returns the artifact instead."""
        check_call(self.function, tensors, params, self.options.num_outs, running=True)
        artifact = self.compile(*tensors, **params)
        if _flag("TTLANG_COMPILE_ONLY"):
            return artifact
        artifact.run(tensors)
        return None


def _described(tensor: Any) -> Any:
    """What compiling needs of an argument: a ttnn tensor as a TensorSpec of its shape
    and element format (its own dtype name when kernels do not take it, for the
    frontend's error), anything else as given."""
    if not ttnn_tensors.is_ttnn_tensor(tensor):
        return tensor
    return TensorSpec(tuple(tensor.shape), ttnn_tensors.element_format(tensor) or str(tensor.dtype))


def pykernel_gen(
    grid: Sequence[int] | Callable[..., Sequence[int]] | None = None,
    block_factors: Sequence | Callable[..., Sequence] | None = None,
    indexing_maps: Sequence[Callable[..., Any]] | None = None,
    iterator_types: Sequence[str] | None = None,
    loop_bounds: Sequence[Callable[..., Any] | None] | None = None,
    deal: str = "contiguous",
    num_outs: int = 1,
    memory_space: str = "L1",
    tiled: bool = True,
    ttnn_interop: bool = False,
    cb_buffers: int | Sequence[int] = 2,
    math_fidelity: MathFidelity = "HiFi2",
    fp32_dest_acc_en: bool = False,
    math_approx_mode: bool = False,
    dst_full_sync_en: bool = False,
    device: str = DEFAULT_DEVICE,
    device_grid: Sequence[int] | None = None,
    dtypes: Mapping[str, str] | None = None,
    **unknown_options: Any,
):
    """Declares a kernel running on `grid` (rows, cols) of cores.

    `block_factors`: the CB block shape of each tensor argument, in tiles ((rows, cols),
    or one entry per dim); default one tile. `indexing_maps` (tt-lang's
    `lambda m, n, k: (m, k)`, one per tensor) and `iterator_types` ("parallel" /
    "reduction" per loop dim) describe the iteration space of tensors no thread moves
    with `dma` (docs/dsl.md, "Implicit operands"); with them `block_factors` may also
    give tiles per loop dim (`[2, 1, 4]`); `loop_bounds` (per loop dim, None or a
    callable of the loop dims) bounds a dim's blocks by the dims outside it, and
    `deal` ("contiguous" or "serpentine") says how a grid dim's blocks are dealt to its
    cores. `grid` and `block_factors` may be callables
    of the kernel's arguments. The last `num_outs` tensors are outputs. `cb_buffers`:
    blocks per CB (one count, or one per tensor). The compute configuration
    (`math_fidelity`, `fp32_dest_acc_en`, `math_approx_mode`, `dst_full_sync_en`) is
    tt-metal's. `device` names the target's description (ttlang.device: grid, L1, DST,
    costs); `device_grid` narrows its core grid. `dtypes` stores tensors in another
    device format, by parameter name, with ttnn's dtype names: `dtypes={"k":
    "bfloat8_b"}` keeps `k` in DRAM and in its CB as bfp8_b tiles (converted on the
    host as `ttnn.from_torch(k, dtype=ttnn.bfloat8_b)` does). `memory_space` ("L1" or
    "DRAM"), `tiled` (True) and `ttnn_interop` are accepted as tt-lang spelled them
    (docs/dsl.md, "Coming from tt-lang").
    """
    given = {
        "grid": grid,
        "block_factors": block_factors,
        "indexing_maps": indexing_maps,
        "iterator_types": iterator_types,
        "loop_bounds": loop_bounds,
        "deal": deal,
        "memory_space": memory_space,
        "tiled": tiled,
        "ttnn_interop": ttnn_interop,
        "device": device,
    }

    def decorate(function: FunctionType) -> Kernel:
        try:
            options = KernelOptions(
                grid=_required_grid(grid),
                block_factors=block_factors if callable(block_factors) else freeze(block_factors),
                num_outs=num_outs,
                memory_space=memory_space,
                cb_buffers=freeze(cb_buffers),
                compute_config=ComputeConfig(
                    math_fidelity=math_fidelity,
                    fp32_dest_acc_en=fp32_dest_acc_en,
                    math_approx_mode=math_approx_mode,
                    dst_full_sync_en=dst_full_sync_en,
                ),
                device=device,
                device_grid=freeze(device_grid),
                dtypes=tuple(sorted((dtypes or {}).items())),
                **_tt_lang_options(given, unknown_options),
            )
        except OptionError as error:
            raise option_error(function, error) from None
        check_decorator(function, options)
        return Kernel(function, options)

    return decorate


def _required_grid(grid):
    if grid is None:
        raise OptionError("grid", "@pykernel_gen needs grid=(rows, cols)", "e.g. grid=(1, 1)")
    return grid if callable(grid) else freeze(grid)


def _tt_lang_options(given: dict[str, Any], unknown: dict[str, Any]) -> dict[str, Any]:
    """Checks the options tt-lang had that we take as given; returns the KernelOptions
    fields of the iteration space. Raises OptionError for one we cannot honour."""
    for name in unknown:
        raise OptionError(
            name,
            f"@pykernel_gen has no option `{name}`",
            "options: " + ", ".join(inspect.signature(pykernel_gen).parameters.keys() - {"unknown_options"}),
        )
    try:
        load_device(given["device"])
    except DeviceDescriptionError as error:
        raise OptionError("device", str(error)) from None
    if given["memory_space"] not in MEMORY_SPACES:
        raise OptionError(
            "memory_space",
            f"memory_space={given['memory_space']!r} is not supported",
            'pass memory_space="L1" or "DRAM" (tensors live in DRAM, CBs in L1, either way)',
        )
    for flag in ("tiled", "ttnn_interop"):
        if not isinstance(given[flag], bool):
            raise OptionError(flag, f"{flag} takes True or False, not {given[flag]!r}")
    if not given["tiled"]:
        raise OptionError(
            "tiled",
            "tiled=False (row-major tensors) is not supported: kernels work on 32x32 tiles",
            "drop the option; pass tensors whose last two dims are multiples of 32",
        )
    if given["deal"] not in GenericOp.DEALS:
        raise OptionError("deal", f"deal={given['deal']!r}: choose one of {list(GenericOp.DEALS)}")
    # indexing_maps / iterator_types / loop_bounds are checked against the tensors when
    # compiling (frontend.iteration_space), also at the decorator's keywords.
    return {
        "indexing_maps": freeze(given["indexing_maps"]),
        "iterator_types": freeze(given["iterator_types"]),
        "loop_bounds": freeze(given["loop_bounds"]),
        "deal": given["deal"],
    }


def option_error(function: FunctionType, error: OptionError) -> KernelError:
    """`error` as a KernelError at its option's keyword in `function`'s decorator."""
    kernel = parse_function(function)
    return kernel.error(decorator_keyword(kernel, error.option), error.message, error.hint)


kernel = pykernel_gen
