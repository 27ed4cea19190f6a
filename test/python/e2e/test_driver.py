"""The driver's error reporting: a pass rejecting its input names the pass and the op's
location; a pass crashing is reported as a compiler bug naming the pass."""

from __future__ import annotations

import pytest

from ttlang.driver import CompileError, compile_module, make_context
from ttlang.tools.ttlang_opt import LocatingParser
from ttlang.transforms.d2m_elementwise_fusion import D2MElementwiseFusion
from ttlang.transforms.diagnostics import PassInvariantError

# A transpose reads its operand from a CB, but this body computes it in DST.
CB_OPERAND_IN_DST = """\
!tile = !ttcore.tile<32x32, bf16>
!dram = memref<1x1x!tile, #ttcore.memory_space<dram>>
!cb = !d2m.cb<memref<1x1x!tile, #ttcore.memory_space<l1>>>
!t = tensor<1x1x!tile>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @misplaced(%out: !dram) {
  d2m.generic {grid = #ttcore.grid<1x1>, block_factors = [1, 1], threads = [#d2m.thread<compute>]} ins() outs(%out : !dram) {
  ^bb0(%out_cb: !cb):
    %o = d2m.reserve %out_cb : !cb -> !t
    %e = tensor.empty() : !t
    %y = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : !t) {
    ^bb0(%c: !tile):
      %a = d2m.tile_fill 1.0 : !tile
      %r = d2m.tile_transpose %a : !tile
      linalg.yield %r : !tile
    } -> !t
    d2m.store %o, %y : !t, !t
    d2m.push %out_cb : !cb
  }
  return
}
"""


def _module(text: str):
    return LocatingParser(make_context(), text, "misplaced.mlir").parse_module()


def test_rejected_input_names_the_pass_and_the_op_location():
    with pytest.raises(CompileError) as caught:
        compile_module(_module(CB_OPERAND_IN_DST))
    error = caught.value
    assert error.pass_name == "d2m-tile-subblock"
    assert not error.is_compiler_bug
    assert error.location == "misplaced.mlir:14:12"  # the d2m.tile_transpose
    assert "needs an operand from a circular buffer" in str(error)


def test_crash_in_a_pass_is_a_compiler_bug(monkeypatch):
    def crash(self, ctx, module):
        raise KeyError("slot")

    monkeypatch.setattr(D2MElementwiseFusion, "apply", crash)
    with pytest.raises(CompileError) as caught:
        compile_module(_module(CB_OPERAND_IN_DST))
    error = caught.value
    assert error.is_compiler_bug and error.pass_name == "d2m-elementwise-fusion"
    assert str(error).startswith(
        "internal compiler error in pass 'd2m-elementwise-fusion': KeyError"
    )


def test_broken_pass_invariant_is_a_compiler_bug(monkeypatch):
    """A PassInvariantError (IR lacking what an earlier pass establishes) is the
    compiler's fault when the pipeline made the IR, unlike a plain PassError."""

    def break_invariant(self, ctx, module):
        raise PassInvariantError(module, "needs its operand in DST; run d2m-lower-to-loops first.")

    monkeypatch.setattr(D2MElementwiseFusion, "apply", break_invariant)
    with pytest.raises(CompileError) as caught:
        compile_module(_module(CB_OPERAND_IN_DST))
    error = caught.value
    assert error.is_compiler_bug and error.pass_name == "d2m-elementwise-fusion"
    assert "internal compiler error in pass 'd2m-elementwise-fusion': " in str(error)


def test_pass_leaving_invalid_ir_is_named(monkeypatch):
    """The IR is verified once after the pipeline; when that fails, the pipeline runs
    again verifying after every pass, to name the pass that broke it."""

    def break_ir(self, ctx, module):
        module.body.block.first_op.sym_name = None  # a func.func without its symbol name

    monkeypatch.setattr(D2MElementwiseFusion, "apply", break_ir)
    with pytest.raises(CompileError) as caught:
        compile_module(_module(CB_OPERAND_IN_DST))
    error = caught.value
    assert error.is_compiler_bug and error.pass_name == "d2m-elementwise-fusion"
    assert "the pass left IR that does not verify" in str(error)


def test_stages_are_computed_on_first_use():
    from ttlang.driver import DEFAULT_PIPELINE, FRONTEND_STAGE

    module = _module(CB_OPERAND_IN_DST.replace("d2m.tile_transpose", "d2m.tile_exp"))
    frontend = str(module)
    artifact = compile_module(module)
    assert list(artifact.stages) == [FRONTEND_STAGE, *DEFAULT_PIPELINE]
    assert artifact.stages[FRONTEND_STAGE] == frontend
    assert artifact.final_ir == str(module)
