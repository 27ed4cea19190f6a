"""canonicalize-inner-first: xDSL's canonicalization (its patterns and folders, and dead
code removal after each walk) with every op visited after the ops nested in it.

xDSL's `canonicalize` visits an op before the ops in its regions and walks the whole
module again until a walk changes nothing. Its `scf.for` pattern moves the constants
of a loop's body before the loop, but a constant that folding creates in a nested loop
(`%i + %j` once single-trip loops are inlined and `%i`, `%j` are constants) lands in a
body whose loop was visited already: it climbs one loop a walk, and the walks over the
whole module repeat until the deepest one is out (six for causal FlashAttention's
kernels, the compiler's slowest pass). Visiting the loops innermost first, a constant
leaves every loop around it in the walk that creates it: three walks. The kernels'
C++ is the same either way (the C++ emitter prints constants where they are used);
only the order of the constants in the IR differs.

Before:

    scf.for %i = %c0 to %c4 step %c1 : i32 {
      scf.for %j = %c0 to %c1 step %c1 : i32 {
        %t = arith.addi %j, %c2 : i32
        ttkernel.pack_tile(%t, %cb, %i)
      }
    }

After (the single-trip loop inlined, `0 + 2` folded, the constant before the outer loop):

    %c2_1 = arith.constant 2 : i32
    scf.for %i = %c0 to %c4 step %c1 : i32 {
      ttkernel.pack_tile(%c2_1, %cb, %i)
    }

Reports nothing: whatever the patterns do not match stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce


@dataclass(frozen=True)
class CanonicalizeInnerFirst(ModulePass):
    """xDSL's canonicalization, visiting the ops in an op's regions before the op."""

    name = "canonicalize-inner-first"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        )
        walker = PatternRewriteWalker(pattern, post_walk_func=region_dce, walk_regions_first=True)
        walker.rewrite_module(op)
