"""d2m-if-to-loops: a run-time `if` in a compute thread that yields blocks becomes
loops of 0 or 1 trips carrying them, which d2m-bufferize streams through CBs like any
loop-carried block (a block an `if` yields has no CB of its own to live in; a loop's
has: the carry CB).

The `then` region becomes a loop run when the condition holds; its carried values
start as what the `if` would give when the `then` region does not run: the `else`
value when it is defined before the `if` (the DSL's `if c: x = f(x)`: the else
region yields `x`), else the `then` value when that is (the branch leaves it
unchanged), else an undefined block that no path reads. Inside the loop the uses of
those start values read the carried values instead (the same blocks, when the loop
runs), so the body reads the carry CB's front rather than a second copy. An `else`
region that computes anything becomes a second loop, run when the condition does not
hold, carrying the first loop's results (its start values, when it runs).

It runs first, so that every pass after it sees only loops, which they all handle: the
generated data movement follows a compute `if`'s CB waits as a loop's, and
d2m-deferred-row-sum defers a row sum across the loops an `if` becomes (the DSL's
FlashAttention picks its diagonal step with one; `for _ in range(n)`, n 0 or 1, gives
the same IR).

Before:

    %r = scf.if %c -> (tensor<1x2x!tile>) {
      %e = tensor.empty() : tensor<1x2x!tile>
      %n = linalg.generic {...} ins(%acc, %x : ...) outs(%e : ...) {tile_add} -> tensor<1x2x!tile>
      scf.yield %n : tensor<1x2x!tile>
    } else {
      scf.yield %acc : tensor<1x2x!tile>
    }

After:

    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %trips = arith.select %c, %one, %zero : index
    %r = scf.for %i = %zero to %trips step %one iter_args(%a = %acc) -> (tensor<1x2x!tile>) {
      %e = tensor.empty() : tensor<1x2x!tile>
      %n = linalg.generic {...} ins(%a, %x : ...) outs(%e : ...) {tile_add} -> tensor<1x2x!tile>
      scf.yield %n : tensor<1x2x!tile>
    }

An `if` yielding no blocks is left alone. Fails (PassError) on an `if` that yields
both blocks and other values (indices): a loop carries blocks only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType
from xdsl.ir import Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from ttlang.transforms.compute_region import compute_entry, defined_before
from ttlang.transforms.diagnostics import PassError


_NewOp = TypeVar("_NewOp", bound=Operation)


def _branch_loop(
    trips: SSAValue,
    zero: SSAValue,
    one: SSAValue,
    inits: list[SSAValue],
    starts: list[SSAValue],
    region: Region,
) -> scf.ForOp:
    """A loop of `trips` (0 or 1) trips carrying values that start as `starts` (equal
    to `inits` whenever the loop runs), its body `region`'s block with every use of an
    init inside it reading the carried value instead."""
    body = region.detach_block(0)
    body.insert_arg(IndexType(), 0)
    for init in inits:  # an init listed twice: its uses already read the first arg
        arg = body.insert_arg(init.type, len(body.args))
        init.replace_uses_with_if(arg, lambda use: body.is_ancestor(use.operation))
    return scf.ForOp(zero, trips, one, starts, Region(body))


class IfYieldingBlocksToLoops(RewritePattern):
    """scf.if yielding blocks in a compute thread -> loops of 0 or 1 trips."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        if compute_entry(op) is None or not any(isinstance(r.type, TensorType) for r in op.results):
            return
        if not all(isinstance(r.type, TensorType) for r in op.results):
            raise PassError(
                op,
                "assigns both blocks and other values (indices) in a run-time branch; "
                "assign the indices before the `if`, or in a separate `if`.",
            )
        then_yield = op.true_region.block.last_op
        else_yield = op.false_region.block.last_op
        assert isinstance(then_yield, scf.YieldOp) and isinstance(else_yield, scf.YieldOp)

        def before_if(new_op: _NewOp) -> _NewOp:
            return rewriter.insert(new_op, InsertPoint.before(op))

        zero = before_if(arith.ConstantOp.from_int_and_width(0, IndexType())).result
        one = before_if(arith.ConstantOp.from_int_and_width(1, IndexType())).result
        inits: list[SSAValue] = []
        branches = zip(op.results, then_yield.operands, else_yield.operands)
        for result, then_value, else_value in branches:
            if defined_before(else_value, op):
                inits.append(else_value)
            elif defined_before(then_value, op):
                inits.append(then_value)
            else:  # both branches compute it: a block no path reads before its store
                inits.append(before_if(tensor.EmptyOp([], result.type)).tensor)
        then_trips = before_if(arith.SelectOp(op.cond, one, zero)).result
        loop = before_if(_branch_loop(then_trips, zero, one, inits, inits, op.true_region))
        if len(op.false_region.block.ops) > 1 or list(else_yield.operands) != inits:
            else_trips = before_if(arith.SelectOp(op.cond, zero, one)).result
            # It runs when the first did not, whose results are then its inits.
            loop = before_if(
                _branch_loop(else_trips, zero, one, inits, list(loop.results), op.false_region)
            )
        for result, carried in zip(op.results, loop.results):
            carried.name_hint = result.name_hint
        rewriter.replace(op, [], list(loop.results))


@dataclass(frozen=True)
class D2MIfToLoops(ModulePass):
    """Run-time `if`s yielding blocks -> loops of 0 or 1 trips carrying them."""

    name = "d2m-if-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(IfYieldingBlocksToLoops()).rewrite_module(op)
