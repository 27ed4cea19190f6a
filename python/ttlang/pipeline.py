"""Every pass ttlang can run, by its kebab-case name, and pass-pipeline parsing.

`ttlang-opt -p` and the compiler driver build their pipelines here. Registration is
lazy: naming a pass imports only its module, so tools start fast.

A pipeline spec is xDSL's `a,b{option=value}` or MLIR's `builtin.module(a,b)`; passes
always run on the whole module (no nested `func.func(...)` anchors).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

# pass name -> (module, class name of the ModulePass)
_PASSES: dict[str, tuple[str, str]] = {
    "canonicalize": ("xdsl.transforms.canonicalize", "CanonicalizePass"),
    "canonicalize-inner-first": ("ttlang.transforms.canonicalize_inner_first", "CanonicalizeInnerFirst"),
    "cse": ("xdsl.transforms.common_subexpression_elimination", "CommonSubexpressionElimination"),
    "d2m-generate-datamovement": (
        "ttlang.transforms.d2m_generate_datamovement",
        "D2MGenerateDatamovement",
    ),
    "d2m-hw-thread-selection": ("ttlang.transforms.d2m_hw_thread_selection", "D2MHWThreadSelection"),
    "d2m-skip-masked-tiles": ("ttlang.transforms.d2m_skip_masked_tiles", "D2MSkipMaskedTiles"),
    "d2m-tril-masks": ("ttlang.transforms.d2m_tril_masks", "D2MTrilMasks"),
    "d2m-check-cb-traffic": ("ttlang.transforms.d2m_check_cb_traffic", "D2MCheckCBTraffic"),
    "d2m-reciprocal-divisor": ("ttlang.transforms.d2m_reciprocal_divisor", "D2MReciprocalDivisor"),
    "d2m-scalar-tile-operand": ("ttlang.transforms.d2m_scalar_tile_operand", "D2MScalarTileOperand"),
    "d2m-deferred-row-sum": ("ttlang.transforms.d2m_deferred_row_sum", "D2MDeferredRowSum"),
    "d2m-if-to-loops": ("ttlang.transforms.d2m_if_to_loops", "D2MIfToLoops"),
    "d2m-bufferize": ("ttlang.transforms.d2m_bufferize", "D2MBufferize"),
    "d2m-memref-provenance": ("ttlang.transforms.d2m_memref_provenance", "D2MMemrefProvenance"),
    "d2m-elementwise-fusion": ("ttlang.transforms.d2m_elementwise_fusion", "D2MElementwiseFusion"),
    "d2m-accumulate-into-dst": (
        "ttlang.transforms.d2m_accumulate_into_dst",
        "D2MAccumulateIntoDst",
    ),
    "d2m-packer-l1-accumulate": (
        "ttlang.transforms.d2m_packer_l1_accumulate",
        "D2MPackerL1Accumulate",
    ),
    "d2m-row-sum-on-pack": ("ttlang.transforms.d2m_row_sum_on_pack", "D2MRowSumOnPack"),
    "d2m-hand-off-on-pack": ("ttlang.transforms.d2m_hand_off_on_pack", "D2MHandOffOnPack"),
    "d2m-cb-start-as-add": ("ttlang.transforms.d2m_cb_start_as_add", "D2MCBStartAsAdd"),
    "d2m-tile-subblock": ("ttlang.transforms.d2m_tile_subblock", "D2MTileSubblock"),
    "d2m-split-prologue": ("ttlang.transforms.d2m_split_prologue", "D2MSplitPrologue"),
    "d2m-dst-allocate": ("ttlang.transforms.d2m_dst_allocate", "D2MDstAllocate"),
    "d2m-lower-to-loops": ("ttlang.transforms.d2m_lower_to_loops", "D2MLowerToLoops"),
    "convert-d2m-to-ttkernel": ("ttlang.conversion.d2m_to_ttkernel", "ConvertD2MToTTKernel"),
    "ttkernel-drop-zero-fills": ("ttlang.transforms.ttkernel_drop_zero_fills", "TTKernelDropZeroFills"),
    "ttkernel-place-inits": ("ttlang.transforms.ttkernel_place_inits", "TTKernelPlaceInits"),
    "ttkernel-sink-cb-waits": ("ttlang.transforms.ttkernel_sink_cb_waits", "TTKernelSinkCBWaits"),
    "ttkernel-hoist-cb-pushes": ("ttlang.transforms.ttkernel_hoist_cb_pushes", "TTKernelHoistCBPushes"),
    "ttkernel-share-cb-l1": ("ttlang.transforms.ttkernel_share_cb_l1", "TTKernelShareCBL1"),
    "ttkernel-stream-cb-blocks": ("ttlang.transforms.ttkernel_stream_cb_blocks", "TTKernelStreamCBBlocks"),
    "convert-ttkernel-to-emitc": ("ttlang.conversion.ttkernel_to_emitc", "ConvertTTKernelToEmitCPass"),
}

_MLIR_MODULE_ANCHOR = "builtin.module("


class PipelineError(Exception):
    """A pass pipeline spec that does not parse or names an unknown pass."""


def pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    """Factories for every registered pass class, keyed by pass name."""

    def factory(module: str, attribute: str) -> Callable[[], type[ModulePass]]:
        return lambda: getattr(importlib.import_module(module), attribute)

    return {name: factory(m, a) for name, (m, a) in _PASSES.items()}


def pass_names() -> list[str]:
    """The registered pass names, sorted."""
    return sorted(_PASSES)


def _strip_module_anchor(spec: str) -> str:
    """`builtin.module(a,b)` -> `a,b`; any other spec is returned unchanged."""
    spec = spec.strip()
    if spec.startswith(_MLIR_MODULE_ANCHOR) and spec.endswith(")"):
        return spec[len(_MLIR_MODULE_ANCHOR) : -1].strip()
    return spec


def build_pipeline(spec: str, callback: PassPipelineCallbackType | None = None) -> PassPipeline:
    """The pipeline `spec` names, calling `callback` around each pass as xDSL does.

    Raises PipelineError, with a one-line message, when the spec does not parse or
    names a pass that is not registered.
    """
    flat_spec = _strip_module_anchor(spec)
    if "(" in flat_spec:
        raise PipelineError(
            f"nested pass pipelines are not supported ('{spec}'); "
            "passes run on the whole module: write 'a,b' or 'builtin.module(a,b)'"
        )
    try:
        pass_specs = list(parse_pipeline(flat_spec))
    except ArgSpecParseError as error:
        # xDSL's message is the spec with a caret under the offending token; its last
        # line says what is wrong.
        reason = str(error).strip().splitlines()[-1].strip()
        raise PipelineError(f"cannot parse the pass pipeline '{spec}': {reason}") from None
    factories = pass_factories()
    for pass_spec in pass_specs:
        if pass_spec.name not in factories:
            raise PipelineError(
                f"unknown pass '{pass_spec.name}'; registered passes: {', '.join(pass_names())}"
            )
    try:
        passes = tuple(factories[p.name]().from_pass_spec(p) for p in pass_specs)
    except ValueError as error:
        raise PipelineError(f"bad options in the pass pipeline '{spec}': {error}") from None
    return PassPipeline(passes, callback)
