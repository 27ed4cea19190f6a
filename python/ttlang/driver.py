"""The compiler driver: stage-1 IR -> C++ kernels + program descriptor, keeping every stage.

    artifact = compile_module(module)          # module: the frontend's stage-1 IR
    artifact.stages["d2m-lower-to-loops"]      # IR text after that pass (ordered dict,
                                               # computed on first use)
    artifact.sources["add_compute"]            # C++ of one kernel
    artifact.program                           # ttlang.runtime.program.Program
    artifact.run([a, b, c])                    # run on the default target (emulator)
    artifact.perf()                            # the timing report of the last run
    artifact.trace("run.json")                 # rerun it, writing a Perfetto timeline

The passes are docs/pipeline.md's stages, by registered name (ttlang.pipeline). A pass that rejects its input raises `CompileError` naming the pass and
the op (with its source location); a pass that crashes or leaves IR that does not
verify raises `CompileError` with `is_compiler_bug` set.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from ttlang.dialects import register_dialects
from ttlang.pipeline import build_pipeline, pass_factories
from ttlang.runtime.program import Program
from ttlang.conversion.program_builder import CBBudgetError, build_program, check_program_cbs
from ttlang.transforms.diagnostics import PassError, PassInvariantError, source_location

DEFAULT_PIPELINE: tuple[str, ...] = (
    "d2m-if-to-loops",
    "d2m-generate-datamovement",
    "d2m-hw-thread-selection",
    "d2m-tril-masks",
    "d2m-check-cb-traffic",
    "d2m-skip-masked-tiles",
    "d2m-elementwise-fusion",
    "d2m-reciprocal-divisor",
    "d2m-scalar-tile-operand",
    "d2m-deferred-row-sum",
    "d2m-bufferize",
    "d2m-memref-provenance",
    "d2m-accumulate-into-dst",
    "d2m-packer-l1-accumulate",
    "d2m-row-sum-on-pack",
    "d2m-hand-off-on-pack",
    "d2m-cb-start-as-add",
    "d2m-tile-subblock",
    "d2m-split-prologue",
    "d2m-dst-allocate",
    "d2m-lower-to-loops",
    "convert-d2m-to-ttkernel",
    "ttkernel-drop-zero-fills",
    "ttkernel-place-inits",
    "ttkernel-sink-cb-waits",
    "ttkernel-hoist-cb-pushes",
    "ttkernel-share-cb-l1",
    "ttkernel-stream-cb-blocks",
    "cse",  # first: canonicalizing is much faster on IR without duplicate constants
    "canonicalize-inner-first",  # xDSL's canonicalize in fewer walks, the same C++
    "convert-ttkernel-to-emitc",
)
"""docs/pipeline.md's stages after the frontend (1' to 9), in order."""

FRONTEND_STAGE = "frontend"


class CompileError(Exception):
    """A compilation that failed in pass `pass_name`, about `op` when known."""

    def __init__(
        self,
        pass_name: str,
        message: str,
        op: Operation | None = None,
        is_compiler_bug: bool = False,
        budget: CBBudgetError | None = None,
    ):
        self.pass_name = pass_name
        self.budget = budget  # the L1/CB budget failure, with its numbers
        self.op = op
        self.is_compiler_bug = is_compiler_bug
        self.location = _location(op)
        where = f"{self.location}: " if self.location else ""
        kind = "internal compiler error" if is_compiler_bug else "error"
        super().__init__(f"{where}{kind} in pass '{pass_name}': {message}")


def _location(op: Operation | None) -> str | None:
    """`file:line:col` of `op` or of its closest located ancestor."""
    loc = source_location(op)
    return None if loc is None else f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"


def make_context() -> Context:
    """A context with every dialect ttlang IR may use (xDSL's and ttlang's)."""
    ctx = Context()
    register_dialects(ctx)
    return ctx


class Artifact:
    """What one compilation produced. `stages` (the IR after every stage) is computed
    on first use, by running the pipeline again from the kept frontend IR: printing
    every stage costs about as much as the passes themselves."""

    def __init__(
        self, frontend: ModuleOp, pipeline: Sequence[str], sources: dict[str, str], program: Program
    ):
        self._frontend = frontend  # a copy of the stage-1 IR, never transformed
        self._pipeline = tuple(pipeline)
        self._stages: dict[str, str] | None = None
        self.sources = sources  # kernel name -> C++ source
        self.program = program
        self.last_run: Any = None  # the runtime's RunResult
        self._last_tensors: Any = None  # what the last run ran with (trace() reruns it)

    @property
    def stages(self) -> dict[str, str]:
        """Stage name -> IR text after it, in pipeline order."""
        if self._stages is None:
            self._stages = run_stages(self._frontend.clone(), self._pipeline)
        return self._stages

    def module_after(self, stage: str) -> ModuleOp:
        """The IR after pipeline stage `stage` (a pass name), compiled again from the
        kept frontend IR."""
        if stage not in self._pipeline:
            raise ValueError(f"no stage '{stage}' in the pipeline: {', '.join(self._pipeline)}")
        module = self._frontend.clone()
        _run_passes(module, self._pipeline[: self._pipeline.index(stage) + 1])
        return module

    @property
    def final_ir(self) -> str:
        return next(reversed(self.stages.values()))

    def run(self, tensors: Sequence[Any] | Mapping[str, Any], target: str | None = None) -> Any:
        """Runs the program with `tensors` (the kernel's tensors in order, or by name) on
        `target` (default: $TTLANG_TARGET, else the emulator); outputs are written into
        the given tensors. Returns the runtime's `RunResult`."""
        from ttlang.runtime import run_program

        self.last_run = run_program(self.program, tensors, target)
        self._last_tensors = tensors
        return self.last_run

    def trace(
        self,
        path: Any,
        tensors: Sequence[Any] | Mapping[str, Any] | None = None,
        *,
        cores: Sequence[tuple[int, int]] | None = None,
        max_slices: int | None = None,
    ) -> Any:
        """Runs the program on the emulator with `tensors` (default: the last run's) and
        writes its timeline to `path` as Chrome trace-event JSON, for Perfetto
        (`ttlang.runtime.trace`: `cores` to record, default all; the `max_slices` cap).
        Returns the runtime's `RunResult`."""
        from ttlang.runtime import run_program
        from ttlang.runtime.trace import DEFAULT_MAX_SLICES, TraceOptions

        if tensors is None:
            if self._last_tensors is None:
                raise RuntimeError("no tensors to trace with: pass them, or call artifact.run(tensors) first")
            tensors = self._last_tensors
        options = TraceOptions(path, cores, max_slices or DEFAULT_MAX_SLICES)
        self.last_run = run_program(self.program, tensors, "emulator", trace=options)
        self._last_tensors = tensors
        return self.last_run

    def __call__(self, *tensors: Any) -> Any:
        """`artifact(a, b, out)`: runs like `run((a, b, out))`, as tt-lang's compiled
        kernels were called."""
        return self.run(tensors)

    def perf(self) -> Any:
        """The timing report (`ttlang.runtime.TimingReport`) of the last `run`."""
        if self.last_run is None:
            raise RuntimeError("no timing report yet: call artifact.run(tensors) first")
        return self.last_run.report


@dataclass(frozen=True)
class CompileOptions:
    """How to compile: the pass pipeline and whether to print IR after every stage."""

    pipeline: tuple[str, ...] = DEFAULT_PIPELINE
    verbose_passes: bool = False


def compile_module(module: ModuleOp, **options: Any) -> Artifact:
    """Compiles the stage-1 `module` (transformed in place) with `CompileOptions(**options)`."""
    opts = CompileOptions(**options)
    frontend = module.clone()
    if opts.verbose_passes:
        run_stages(module, opts.pipeline, print_each=True)
    else:
        try:
            _run_passes(module, opts.pipeline, _check_cbs_once_laid_out(module))
            _verify(module, opts.pipeline[-1] if opts.pipeline else FRONTEND_STAGE)
        except CompileError as error:
            if not error.is_compiler_bug:
                raise
            # Verifying once is cheaper than after every pass. On a crash or invalid IR,
            # compile again verifying after each pass, to name the pass that broke the
            # IR (a later pass may have crashed on it).
            run_stages(frontend.clone(), opts.pipeline)
            raise
    try:
        program = build_program(module)
    except CBBudgetError as error:  # the kernel asks for more CBs or L1 than a core has
        raise CompileError("program-assembly", str(error), budget=error) from None
    except Exception as error:
        raise CompileError(
            "program-assembly", f"{type(error).__name__}: {error}", is_compiler_bug=True
        ) from error
    sources = {kernel.name: kernel.source for kernel in program.kernels}
    return Artifact(frontend, opts.pipeline, sources, program)


CB_LAYOUT_PASS = "ttkernel-share-cb-l1"
"""The pass after which the program's CBs are final (ids, sizes, L1 sharing)."""


def _check_cbs_once_laid_out(module: ModuleOp) -> Callable[[str], None]:
    """A pass hook checking the program's CBs against a core's L1 after `CB_LAYOUT_PASS`:
    a kernel too big fails before the passes after it (cse, canonicalization, EmitC: half
    of a causal FlashAttention compilation) run for nothing."""

    def check(name: str) -> None:
        if name != CB_LAYOUT_PASS:
            return
        try:
            check_program_cbs(module)
        except CBBudgetError as error:
            raise CompileError("program-assembly", str(error), budget=error) from None

    return check


def run_stages(
    module: ModuleOp, pipeline: Sequence[str], print_each: bool = False
) -> dict[str, str]:
    """Runs `pipeline` on `module`, verifying the IR after every pass; returns the IR text
    after every stage (printed on stderr too with `print_each`)."""
    stages = {FRONTEND_STAGE: str(module)}
    if print_each:
        _print_stage(FRONTEND_STAGE, stages[FRONTEND_STAGE])

    def record(name: str) -> None:
        _verify(module, name)
        stages[name] = str(module)
        if print_each:
            _print_stage(name, stages[name])

    _run_passes(module, pipeline, record)
    return stages


def _verify(module: ModuleOp, pass_name: str) -> None:
    """CompileError (a compiler bug) naming `pass_name` when `module` does not verify."""
    try:
        module.verify()
    except Exception as error:
        raise CompileError(
            pass_name, f"the pass left IR that does not verify: {error}", is_compiler_bug=True
        ) from error


def _run_passes(
    module: ModuleOp, pipeline: Sequence[str], after_each: Callable[[str], None] | None = None
) -> None:
    """Applies the passes named in `pipeline` to `module`; calls `after_each(name)` after each."""
    ctx = make_context()
    factories = pass_factories()
    for name in pipeline:
        if name not in factories:
            raise CompileError(name, "no such pass is registered", is_compiler_bug=True)
        pass_ = build_pipeline(name).passes[0]
        try:
            pass_.apply(ctx, module)
        except PassError as error:
            is_bug = isinstance(error, PassInvariantError)
            raise CompileError(name, error.message, error.op, is_compiler_bug=is_bug) from None
        except Exception as error:  # a crash inside a pass is the compiler's fault
            raise CompileError(
                name, f"{type(error).__name__}: {error}", is_compiler_bug=True
            ) from error
        if after_each is not None:
            after_each(name)


def _print_stage(name: str, ir: str) -> None:
    print(f"// -----// IR after {name} //----- //\n{ir}\n", file=sys.stderr)
