"""ttlang-fuzz: a differential fuzzer (in the style of Csmith / YARPGen). It writes
random valid kernels, compiles them, runs them on the emulator and compares every
output element with torch under an error bound derived from the kernel's expression.

    ttlang-fuzz --count 300 --seed 1          # a fixed-seed run (make test runs one)
    ttlang-fuzz --minutes 60 --seed 7 --jobs 2   # a long run, two processes
    ttlang-fuzz --count 20000 --progress 500     # a progress line every 500 kernels
    python fuzz-failures/case_1234.py         # a failure's standalone repro

What a case is (`Case`, drawn from one seed):
- an expression DAG over the kernel's input blocks: every DSL operator (`+ - * /`,
  scalar forms on both sides, `maximum`, `where`, `@`, `.transpose()`, `.exp() .sqrt()
  .rsqrt() .recip() .neg() .abs()`, `-a`, `abs(a)`, `rowsum rowmax colsum colmax`,
  `full`/`zeros`), with NumPy broadcasting of (R, 1), (1, C) and (1, 1) values against
  full blocks; matmul chains and transposes on square blocks. Operands are built so that
  every value stays finite: `sqrt`, `rsqrt`, `recip` and divisors take `abs(x) + c`
  or `exp(x)` (at least c > 0), `exp` takes values of magnitude at most 4;
- block views (docs/dsl.md, "Block views"): in half the seeds each input but the
  `where` mask has 0 to 3 tile rows more than the expression's blocks (`extra_rows`),
  and every leaf reading such an input reads a view of the expression's rows at a
  random start, `a0[1:3]` (as matmul A, transposed B, elementwise and reduction
  operand; torch slices the same rows); a leaf of an input without extra rows is
  sometimes the whole-block view `a0[0:2]`. Views draw from their own random stream:
  a seed's tree, grid, loops and options are those it drew before views existed
  (2026-11-27), and a seed whose inputs draw no extra rows and whose leaves no
  whole-block view has the kernel it had then (compared with 77e314b's on seeds 0 to
  999 and 3,000,000 to 3,000,299: 718 of those 1,300 seeds);
- triangular masks (docs/dsl.md, "Triangular masks"), from their own stream too: 40%
  of the bf16 seeds (tril masks bf16 blocks) draw `tril(x, diagonal=d, value=v)`, d a
  multiple of 32 crossing the block in 4 of 5 draws (a tile diagonal from 1 - R to
  C - 1), else from above the block's first row to beyond its last column, where
  d2m-skip-masked-tiles skips tiles: half the time on a row max's operand (v = -inf,
  d >= 0), a row sum's (v = 0), a matmul's A (v = 0), an `exp`'s operand (v = -inf:
  the result is 0-masked), an elementwise operand (v 0, -2.5, 1.5 or 0.75); and in
  40% of those seeds the expression becomes `(s - s.rowmax()).exp()` of `s = tril(e,
  d >= 0, -inf)`, as is, divided by its row sums or as a square matmul's A (`s` is a
  name the compute thread assigns before the expression: written out in each place it
  would be computed 2 to 4 times). 30% of the tril seeds (a third stream) have blocks
  of up to 3x3 tiles, more than DST holds (d2m-subblock splits them), and always that
  chain. A -inf tril before a row max keeps d >= 0, so that every row keeps an
  element: a row masked whole has max -inf and `-inf - -inf` is NaN, a row
  docs/dsl.md leaves undefined. Every output is finite: -inf only goes where `exp` or
  a max ends it. torch applies torch.tril with the same fill. A seed whose tril
  stream draws nothing keeps its kernel (compared with 5888bd4's on the seeds above:
  976 of the 977 without a tril; the other drew a tril whose candidate tree was
  redrawn);
- a grid up to the 8x8 device, 1 to 3 blocks streamed per core through CBs of 1 or 2
  blocks, the reader, compute and writer loops each a `range` with its own start,
  sign and step (negative and stepped ranges included) over the same trip count;
- a mode: `map` (one output block per input block) or `carry` (a loop-carried sum or
  maximum over the core's blocks, stored once after the loop); in half the carry seeds
  (their own stream: the others keep their kernels) the update runs under a run-time
  `if` (d2m-if-to-loops): on `(k + core_index(1)) % 2 == 0` or `k < core_index(0) % 2
  + 1`, k the block's ordinal, with no `else`, an `else` halving the carry
  (`acc * 0.5`: a block both branches compute) or one setting it to the block's value
  (`acc = value`: a block defined before the `if`). Seeds 0 to 399 (77 with a
  branch): 0 failures (2026-11-27);
- the compute options (math_fidelity, fp32_dest_acc_en, math_approx_mode,
  dst_full_sync_en) and the tensors' dtype (bf16, sometimes f32).

The error bound (`reference`): torch evaluates the expression in float64 on the same
inputs and carries, per element, a bound on the absolute error of the kernel's value,
by first-order forward error analysis with every operation's result rounded:
- every result is rounded to bf16 (relative error u = 2^-7, a truncating bound: CBs
  and a 16-bit DST hold bf16), so each op adds u*|v|; f32 inputs start with error
  u*|x| (the unpacker may round them to bf16), bf16 inputs are exact;
- sums: errors add (e_a + e_b); products: e_a*|b| + e_b*|a| + e_a*e_b; matmul and
  reductions the same per term, with each product's operands reduced to the math
  fidelity's mantissa bits (relative F: LoFi 2^-3, HiFi2 2^-5, HiFi3 2^-6, HiFi4
  2^-7, also for elementwise `*`) and one rounding per accumulated tile (u times
  the tiles summed) times |a| @ |b| (resp. the sum of |a|);
- a function f (exp, sqrt, rsqrt, recip, division) adds |f'| at the worst point of
  [x - e, x + e] times e, plus its own relative error S*|f(x)| (S = 2^-6; 2^-3 with
  math_approx_mode);
- max and where propagate the error of the chosen operand (max: the larger error).
The kernel passes when every output element is finite and within its bound of the
float64 value. A wrong operator, operand, broadcast, tile order or loop count gives
errors of the size of the values themselves; the bound is a few percent of them.

Longest run so far (2026-11-26): 20,000 kernels, seeds 1,000,000 to 1,019,999, 0
failures, in chunks of `ttlang-fuzz --seed S --count 500` (S = 1,000,000, 1,000,500,
...) on a 2-core machine shared with other work: seeds to 1,009,999 with `--jobs 1`
in 109 min (main at bee77f2 .. f9d5e0d), the rest with `--jobs 2` at nice 10 in 94
min (main at 1144f69). A kernel costs about 0.4 CPU-s: Python compilation ~0.15, g++
of its three kernels ~0.17, the rest torch and the emulator.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import multiprocessing
import random
import sys
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import torch

U = 2.0**-7  # bf16 rounding, truncating
FIDELITY_ERROR = {"LoFi": 2.0**-3, "HiFi2": 2.0**-5, "HiFi3": 2.0**-6, "HiFi4": 2.0**-7}
FUNCTION_ERROR = {False: 2.0**-6, True: 2.0**-3}  # by math_approx_mode
DEVICE_GRID = (8, 8)
TRIL_FILLS = (0.0, 0.0, -2.5, 1.5, 0.75)  # elementwise trils' values (exact in bf16; -inf only where it ends finite)

# ------------------------------------------------------------------ expressions
# A node is a tuple: ("in", i) | ("const", value, kind) | (op, *operands) with scalar
# operands as floats. Kinds: "full" (R, C), "col" (R, 1), "row" (1, C), "one" (1, 1).


@dataclass
class Value:
    """What the generator knows of a node: its kind, a bound on its magnitude, and a
    positive lower bound when the value is known to be positive."""

    node: tuple
    kind: str
    magnitude: float
    positive: float | None = None


def _broadcast(a: str, b: str) -> str:
    rows = "full" if "full" in (a, b) or {a, b} == {"col", "row"} else None
    if rows:
        return "full"
    if "col" in (a, b):
        return "col"
    if "row" in (a, b):
        return "row"
    return "one"


class Generator:
    """Random expression DAGs over `num_inputs` input blocks."""

    def __init__(self, rng: random.Random, num_inputs: int, square: bool, mask_input: int | None,
                 views: random.Random | None = None, extra_rows: tuple[int, ...] = (),
                 trils: random.Random | None = None):
        self.rng = rng
        self.num_inputs = num_inputs
        self.square = square
        self.mask_input = mask_input
        self.views = views  # the view choices' own stream: `rng` draws the same tree with or without views
        self.extra_rows = extra_rows or (0,) * num_inputs
        self.trils = trils  # the tril choices' own stream, as `views`

    def tril(self, arg: Value, fill: float, rows_defined: bool = False) -> Value:
        """`arg` (a full value), in half the draws of a tril seed under
        `tril(arg, self.diagonal(rows_defined), fill)`."""
        if self.trils is None or self.trils.random() < 0.5:
            return arg
        diagonal = self.diagonal(rows_defined)
        magnitude = max(arg.magnitude, abs(fill)) if math.isfinite(fill) else arg.magnitude
        return Value(("tril", arg.node, diagonal, fill), "full", magnitude)

    def diagonal(self, rows_defined: bool) -> int:
        """A tril's diagonal (elements, whole tiles): in 4 of 5 draws a tile diagonal
        that crosses the block (from 1 - R to C - 1 for R x C tiles: tiles kept, masked
        and on it, where a skip decides something), else one from above the block's
        first row to beyond its last column. With `rows_defined` one that keeps every
        row's element 0 (a rowmax of a -inf-masked row that is masked whole is -inf,
        and what follows it not defined: docs/dsl.md, "Triangular masks")."""
        rows, cols = self.block_rows // 32, self.block_cols // 32
        low = 0 if rows_defined else -rows - 1
        if self.trils.random() < 0.8:
            return 32 * self.trils.randint(max(low, 1 - rows), cols - 1)
        return 32 * self.trils.randint(low, cols + 1)

    def softmax(self, arg: Value) -> tuple[Value, tuple]:
        """`(s - s.rowmax()).exp()` of `s = tril(arg, diagonal >= 0, -inf)` (every row
        keeps an element: see `tril`), as is, divided by its row sums, or as a square
        matmul's A: the chains whose masked tiles d2m-skip-masked-tiles skips. Returns
        the chain and `s` (the kernel binds it to a name: written out four times, a
        large `s` needs more temporaries than a core has CBs)."""
        s = ("tril", arg.node, self.diagonal(rows_defined=True), -math.inf)
        p = ("exp", ("sub", s, ("rowmax", s)))
        form = self.trils.choice(["plain", "normalized", "matmul"] if self.square else ["plain", "normalized"])
        if form == "normalized":
            return Value(("div", p, ("rowsum", p)), "full", 1.0), s
        if form == "matmul":
            i = self.trils.choice(self.operands())
            extra = self.extra_rows[i]
            b = ("view", i, self.trils.randint(0, extra)) if extra else ("in", i)
            return Value(("matmul", p, b), "full", float(self.square)), s
        return Value(p, "full", 1.0), s

    def operands(self) -> list[int]:
        """The inputs a leaf may read: all but the `where` mask (unless it is the only one)."""
        return [i for i in range(self.num_inputs) if i != self.mask_input] or [0]

    def leaf(self) -> Value:
        i = self.rng.choice(self.operands())
        extra = self.extra_rows[i]
        if extra or (self.views is not None and self.views.random() < 0.1):
            # a view of the block's tile rows start .. start + the expression's rows; a
            # block of the expression's rows is viewed whole (the identity view)
            return Value(("view", i, self.views.randint(0, extra)), "full", 1.0)
        return Value(("in", i), "full", 1.0)

    def positive(self, depth: int) -> Value:
        """A value at least c > 0 everywhere."""
        inner = self.value("full", depth)
        if self.rng.random() < 0.3 and inner.magnitude <= 4:
            return Value(("exp", inner.node), inner.kind, math.exp(inner.magnitude), math.exp(-inner.magnitude))
        c = self.rng.choice([0.5, 1.0, 2.0])
        return Value(("add_scalar", ("abs", inner.node), c), inner.kind, inner.magnitude + c, c * (1 - U))

    def value(self, kind: str, depth: int) -> Value:
        """A random value of `kind` with at most `depth` more levels."""
        for _ in range(20):
            candidate = self._value(kind, depth)
            if candidate is not None and candidate.magnitude <= 256:
                return candidate
        return self._fallback(kind)

    def _fallback(self, kind: str) -> Value:
        leaf = self.leaf()
        reductions = {"col": "rowmax", "row": "colmax", "one": None}
        if kind == "full":
            return leaf
        if kind == "one":
            return Value(("rowmax", ("colmax", leaf.node)), "one", 1.0)
        return Value((reductions[kind], leaf.node), kind, 1.0)

    def _value(self, kind: str, depth: int) -> Value | None:
        rng = self.rng
        if depth <= 0:
            if kind == "full":
                return self.leaf() if rng.random() < 0.9 else self.constant("full")
            return self.constant(kind) if rng.random() < 0.3 else self._fallback(kind)
        forms = ["unary", "binary", "scalar", "maximum", "reduce"]
        if kind == "full":
            forms += ["leaf", "where", "broadcast"]
            if self.square:
                forms += ["matmul", "transpose", "matmul"]
        form = rng.choice(forms)
        if form == "leaf":
            return self.leaf()
        if form == "unary":
            op = rng.choice(["neg", "abs", "usub", "pyabs", "exp", "sqrt", "rsqrt", "recip"])
            if op in ("sqrt", "rsqrt", "recip"):
                arg = self.positive(depth - 1) if kind == "full" else self._positive_of(kind, depth - 1)
                lo = arg.positive
                if op == "sqrt":
                    return Value((op, arg.node), arg.kind, math.sqrt(arg.magnitude), math.sqrt(lo))
                if op == "rsqrt":
                    return Value((op, arg.node), arg.kind, 1 / math.sqrt(lo), 1 / math.sqrt(arg.magnitude))
                return Value((op, arg.node), arg.kind, 1 / lo, 1 / arg.magnitude)
            arg = self.value(kind, depth - 1)
            if op == "exp":
                if arg.magnitude > 4:
                    return None
                if kind == "full":
                    masked = self.tril(arg, -math.inf)  # exp(-inf) = 0: a 0-masked value
                    if masked is not arg:
                        return Value((op, masked.node), kind, math.exp(arg.magnitude))
                return Value((op, arg.node), kind, math.exp(arg.magnitude), math.exp(-arg.magnitude))
            return Value((op, arg.node), kind, arg.magnitude, arg.positive if op in ("abs", "pyabs") else None)
        if form in ("binary", "broadcast"):
            op = rng.choice(["add", "sub", "mul", "div"])
            if kind == "full" and form == "broadcast":
                kinds = rng.choice([("full", "col"), ("full", "row"), ("full", "one"), ("col", "row")])
                if rng.random() < 0.5:
                    kinds = kinds[::-1]
            else:
                kinds = (kind, kind)
            lhs = self.value(kinds[0], depth - 1)
            if kinds[0] == "full" and self.trils is not None:
                lhs = self.tril(lhs, self.trils.choice(TRIL_FILLS))
            if op == "div":
                rhs = self._positive_of(kinds[1], depth - 1)
                return Value((op, lhs.node, rhs.node), kind, lhs.magnitude / rhs.positive)
            rhs = self.value(kinds[1], depth - 1)
            if op == "mul":
                return Value((op, lhs.node, rhs.node), kind, lhs.magnitude * rhs.magnitude)
            return Value((op, lhs.node, rhs.node), kind, lhs.magnitude + rhs.magnitude)
        if form == "scalar":
            arg = self.value(kind, depth - 1)
            c = rng.choice([0.5, 2.0, 3.0, -1.5, 0.25])
            op = rng.choice(["add_scalar", "scalar_add", "sub_scalar", "scalar_sub", "mul_scalar", "scalar_mul", "div_scalar", "scalar_div"])
            if op == "scalar_div":
                arg = self._positive_of(kind, depth - 1)
                return Value((op, arg.node, c), kind, abs(c) / arg.positive)
            if op in ("mul_scalar", "scalar_mul"):
                return Value((op, arg.node, c), kind, arg.magnitude * abs(c))
            if op == "div_scalar":
                return Value((op, arg.node, c), kind, arg.magnitude / abs(c))
            return Value((op, arg.node, c), kind, arg.magnitude + abs(c))
        if form == "maximum":
            lhs = self.value(kind, depth - 1)
            if rng.random() < 0.3:
                c = rng.choice([0.0, -0.5, 0.5])
                return Value(("maximum_scalar", lhs.node, c), kind, max(lhs.magnitude, abs(c)))
            rhs = self.value(kind, depth - 1)
            return Value(("maximum", lhs.node, rhs.node), kind, max(lhs.magnitude, rhs.magnitude))
        if form == "where":
            if self.mask_input is None:
                return None
            lhs = self.value("full", depth - 1)
            if rng.random() < 0.3:
                c = rng.choice([0.0, -2.0, 1.0])
                return Value(("where_scalar", ("in", self.mask_input), lhs.node, c), "full", max(lhs.magnitude, abs(c)))
            rhs = self.value(rng.choice(["full", "col", "row"]), depth - 1)
            return Value(("where", ("in", self.mask_input), lhs.node, rhs.node), "full", max(lhs.magnitude, rhs.magnitude))
        if form == "matmul":
            lhs, rhs = self.tril(self.value("full", depth - 1), 0.0), self.value("full", depth - 1)
            width = self.square  # the block's side in elements
            return Value(("matmul", lhs.node, rhs.node), "full", width * lhs.magnitude * rhs.magnitude)
        if form == "transpose":
            arg = self.value("full", depth - 1)
            return Value(("transpose", arg.node), "full", arg.magnitude, arg.positive)
        if form == "reduce":
            sources = {"col": [("rowsum", "full"), ("rowmax", "full")], "row": [("colsum", "full"), ("colmax", "full")],
                       "one": [("rowsum", "row"), ("rowmax", "row"), ("colsum", "col"), ("colmax", "col")],
                       "full": []}[kind]
            if not sources:
                return None
            op, source_kind = rng.choice(sources)
            arg = self.value(source_kind, depth - 1)
            if op in ("rowmax", "rowsum") and source_kind == "full":
                arg = self.tril(arg, -math.inf if op == "rowmax" else 0.0, rows_defined=op == "rowmax")
            extent = self.block_cols if op.startswith("row") else self.block_rows
            magnitude = arg.magnitude * (extent if op.endswith("sum") else 1)
            return Value((op, arg.node), kind, magnitude, arg.positive if op.endswith("max") else None)
        return None

    def _positive_of(self, kind: str, depth: int) -> Value:
        if kind == "full":
            return self.positive(depth)
        inner = self.value(kind, depth)
        c = self.rng.choice([0.5, 1.0, 2.0])
        return Value(("add_scalar", ("abs", inner.node), c), kind, inner.magnitude + c, c * (1 - U))

    def constant(self, kind: str) -> Value:
        value = self.rng.choice([0.0, 1.0, -0.5, 2.0, 0.125])
        return Value(("const", value, kind), kind, abs(value), value if value > 0 else None)


# ------------------------------------------------------------------ rendering

_DSL_UNARY = {"neg": "{}.neg()", "abs": "{}.abs()", "usub": "(-{})", "pyabs": "abs({})", "exp": "{}.exp()",
              "sqrt": "{}.sqrt()", "rsqrt": "{}.rsqrt()", "recip": "{}.recip()", "transpose": "{}.transpose()",
              "rowsum": "{}.rowsum()", "rowmax": "{}.rowmax()", "colsum": "{}.colsum()", "colmax": "{}.colmax()"}
_DSL_BINARY = {"add": "({} + {})", "sub": "({} - {})", "mul": "({} * {})", "div": "({} / {})",
               "matmul": "({} @ {})", "maximum": "maximum({}, {})"}
_DSL_SCALAR = {"add_scalar": "({} + {!r})", "sub_scalar": "({} - {!r})", "mul_scalar": "({} * {!r})",
               "div_scalar": "({} / {!r})", "maximum_scalar": "maximum({}, {!r})"}
_DSL_SCALAR_LEFT = {"scalar_add": "({1!r} + {0})", "scalar_sub": "({1!r} - {0})", "scalar_mul": "({1!r} * {0})",
                    "scalar_div": "({1!r} / {0})"}


def render(node: tuple, shapes: dict[str, tuple[int, int]], names: dict[tuple, str] | None = None) -> str:
    """The DSL source of `node`; inputs are `a0`, `a1`, ...; `shapes` by kind; a
    subtree in `names` is that name (a value bound before the expression)."""
    if names and node in names:
        return names[node]
    op = node[0]
    if op == "in":
        return f"a{node[1]}"
    if op == "view":
        start, stop = node[2], node[2] + shapes["full"][0] // 32
        return f"a{node[1]}[{start}:{stop}]"
    if op == "const":
        return f"full({shapes[node[2]]}, {node[1]!r})"
    if op in _DSL_UNARY:
        return _DSL_UNARY[op].format(render(node[1], shapes, names))
    if op in _DSL_BINARY:
        return _DSL_BINARY[op].format(render(node[1], shapes, names), render(node[2], shapes, names))
    if op in _DSL_SCALAR:
        return _DSL_SCALAR[op].format(render(node[1], shapes, names), node[2])
    if op in _DSL_SCALAR_LEFT:
        return _DSL_SCALAR_LEFT[op].format(render(node[1], shapes, names), node[2])
    if op == "where":
        return f"where({render(node[1], shapes, names)}, {render(node[2], shapes, names)}, {render(node[3], shapes, names)})"
    if op == "where_scalar":
        return f"where({render(node[1], shapes, names)}, {render(node[2], shapes, names)}, {node[3]!r})"
    if op == "tril":
        fill = "-math.inf" if node[3] == -math.inf else repr(node[3])
        return f"tril({render(node[1], shapes, names)}, diagonal={node[2]}, value={fill})"
    raise ValueError(f"unknown node {op}")


# ------------------------------------------------------------------ reference + bound


@dataclass
class Options:
    math_fidelity: str = "HiFi4"
    fp32_dest_acc_en: bool = False
    math_approx_mode: bool = False
    dst_full_sync_en: bool = False


def reference(
    node: tuple,
    inputs: list[torch.Tensor],
    options: Options,
    shapes: dict[str, tuple[int, int]],
    inputs_exact: bool = True,
):
    """(value, error bound) of `node` on float64 blocks `inputs`, elementwise. Inputs
    that are not exact in bf16 (f32 tensors) may be rounded to bf16 on their way into
    DST or the FPU's source registers: `inputs_exact=False` gives them that error."""
    fid = FIDELITY_ERROR[options.math_fidelity]
    fun = FUNCTION_ERROR[options.math_approx_mode]

    def rounded(v, e):
        # -inf (a tril's fill carried by `- m`) is exact: no error to carry into exp
        return v, torch.where(v.isinf(), 0.0, e + U * v.abs())

    def go(node):
        op = node[0]
        if op in ("in", "view"):
            x = inputs[node[1]]
            if op == "view":
                x = x[node[2] * 32 : node[2] * 32 + shapes["full"][0]]
            return x, torch.zeros_like(x) if inputs_exact else U * x.abs()
        if op == "const":
            v = torch.full(shapes[node[2]], float(node[1]), dtype=torch.float64)
            return v, U * v.abs()
        if op == "where":
            c = inputs[node[1][1]]
            (a, ea), (b, eb) = go(node[2]), go(node[3])
            return torch.where(c != 0, a, b), torch.where(c != 0, ea, eb)
        if op == "where_scalar":
            c = inputs[node[1][1]]
            a, ea = go(node[2])
            return torch.where(c != 0, a, torch.full_like(a, node[3])), torch.where(c != 0, ea, torch.zeros_like(ea))
        a, ea = go(node[1])
        if op == "tril":
            kept = tril_kept(a.shape, node[2])
            return torch.where(kept, a, node[3]), torch.where(kept, ea, 0.0)
        if op in ("neg", "usub"):
            return -a, ea
        if op in ("abs", "pyabs"):
            return a.abs(), ea
        if op == "transpose":
            return a.transpose(-2, -1), ea.transpose(-2, -1)
        if op == "exp":
            v = torch.exp(a)
            return rounded(v, torch.exp(a + ea) * ea + fun * v)
        if op in ("sqrt", "rsqrt", "recip"):
            low = (a - ea).clamp_min(1e-300)
            if op == "sqrt":
                v = a.sqrt()
                return rounded(v, ea / (2 * low.sqrt()) + fun * v)
            if op == "rsqrt":
                v = a.rsqrt()
                return rounded(v, 0.5 * ea * low.pow(-1.5) + fun * v)
            v = 1 / a
            return rounded(v, ea / low.pow(2) + fun * v.abs())
        if op in ("rowsum", "colsum", "rowmax", "colmax"):
            dim = -1 if op.startswith("row") else -2
            if op.endswith("max"):
                return a.amax(dim, keepdim=True), ea.amax(dim, keepdim=True)
            tiles = max(1, a.shape[dim] // 32)
            v = a.sum(dim, keepdim=True)
            return rounded(v, ea.sum(dim, keepdim=True) + (fid + U * tiles) * a.abs().sum(dim, keepdim=True))
        if op in _DSL_SCALAR or op in _DSL_SCALAR_LEFT:
            c = float(node[2])
            if op in ("add_scalar", "scalar_add"):
                return rounded(a + c, ea)
            if op == "sub_scalar":
                return rounded(a - c, ea)
            if op == "scalar_sub":
                return rounded(c - a, ea)
            if op in ("mul_scalar", "scalar_mul"):
                v = a * c
                return rounded(v, ea * abs(c) + fid * v.abs())
            if op == "div_scalar":
                v = a / c
                return rounded(v, ea / abs(c) + (fid + fun) * v.abs())
            if op == "scalar_div":
                v = c / a
                low = (a - ea).clamp_min(1e-300)
                return rounded(v, abs(c) * ea / low.pow(2) + (fid + fun) * v.abs())
            if op == "maximum_scalar":
                return torch.clamp_min(a, c), ea
        b, eb = go(node[2])
        if op == "add":
            return rounded(a + b, ea + eb)
        if op == "sub":
            return rounded(a - b, ea + eb)
        if op == "mul":
            v = a * b
            return rounded(v, ea * b.abs() + eb * a.abs() + ea * eb + fid * v.abs())
        if op == "div":
            v = a / b
            low = (b - eb).clamp_min(1e-300)
            return rounded(v, ea / low + a.abs() * eb / low.pow(2) + (fid + fun) * v.abs())
        if op == "maximum":
            v = torch.maximum(a, b)
            return v, torch.maximum(ea, eb)
        if op == "matmul":
            tiles = max(1, a.shape[-1] // 32)
            propagated = ea @ b.abs() + a.abs() @ eb + ea @ eb
            return rounded(a @ b, propagated + (fid + U * tiles) * (a.abs() @ b.abs()))
        raise ValueError(f"unknown node {op}")

    return go(node)


def tril_kept(shape: torch.Size, diagonal: int) -> torch.Tensor:
    """torch.tril's kept elements of a (rows, cols) block: column <= row + diagonal."""
    return torch.ones(shape, dtype=torch.bool).tril(diagonal)


# ------------------------------------------------------------------ cases


LOOP_FORMS = ("forward", "reverse", "negative", "stepped", "negative_stepped")
BRANCH_CONDITIONS = ("parity", "below")  # Case.branch: when a carry update runs
BRANCH_ELSES = ("none", "half", "value")  # and what the carry becomes when it does not


def branch_taken(condition: str, k: int, row: int, col: int) -> bool:
    """Whether a branched carry's update runs for block ordinal k on core (row, col)."""
    return (k + col) % 2 == 0 if condition == "parity" else k < row % 2 + 1


BRANCH_SOURCE = {"parity": "(k + core_index(1)) % 2 == 0", "below": "k < core_index(0) % 2 + 1"}


def loop_header(form: str, trips: int, variable: str) -> tuple[str, str]:
    """`for` header over `trips` iterations and the expression of the iteration's
    ordinal (0, 1, ...) in terms of `variable`."""
    if form == "forward":
        return f"range({trips})", variable
    if form == "reverse":
        return f"range({trips - 1}, -1, -1)", f"({trips - 1} - {variable})"
    if form == "negative":
        return f"range(-{trips}, 0)", f"({variable} + {trips})"
    if form == "stepped":
        return f"range(3, {3 + 3 * trips}, 3)", f"(({variable} - 3) // 3)"
    return f"range(-1, {-1 - 2 * trips}, -2)", f"((-1 - {variable}) // 2)"


@dataclass
class Case:
    seed: int
    grid: tuple[int, int]
    block: tuple[int, int]  # tiles
    blocks_per_core: int
    num_inputs: int
    mask_input: int | None
    mode: str  # "map" or "carry"
    carry_op: str  # "add" or "maximum"
    options: Options
    dtype: str
    cb_buffers: int
    loops: dict[str, str]  # thread -> loop form
    extra_rows: tuple[int, ...] = ()  # per input: tile rows its block has beyond `block`'s (read through views)
    expression: tuple = ()
    magnitude: float = 1.0
    dsl_expression: str = ""
    bindings: tuple[tuple[str, str], ...] = ()  # (name, DSL source) bound before the expression, in order
    branch: tuple[str, str] | None = None  # carry under a run-time `if`: (condition, else) kinds

    @property
    def shapes(self) -> dict[str, tuple[int, int]]:
        rows, cols = self.block[0] * 32, self.block[1] * 32
        return {"full": (rows, cols), "col": (rows, 1), "row": (1, cols), "one": (1, 1)}

    @property
    def source(self) -> str:
        """The DSL of the bindings and the expression: `s = ...; expression`."""
        return "; ".join([*(f"{name} = {text}" for name, text in self.bindings), self.dsl_expression])

    def input_rows(self, i: int) -> int:
        """Tile rows of input i's blocks."""
        return self.block[0] + (self.extra_rows[i] if self.extra_rows else 0)


def draw_case(seed: int) -> Case:
    rng = random.Random(seed)
    big = rng.random() < 0.1
    grid = (rng.randint(1, DEVICE_GRID[0]), rng.randint(1, DEVICE_GRID[1])) if big else (rng.randint(1, 2), rng.randint(1, 3))
    side = rng.choice([1, 1, 2])
    block = (side, side) if rng.random() < 0.5 else (rng.randint(1, 2), rng.randint(1, 2))
    num_inputs = rng.randint(1, 3)
    mask_input = rng.randrange(num_inputs) if num_inputs > 1 and rng.random() < 0.4 else None
    case = Case(
        seed=seed,
        grid=grid,
        block=block,
        blocks_per_core=1 if big else rng.randint(1, 3),
        num_inputs=num_inputs,
        mask_input=mask_input,
        mode=rng.choice(["map", "map", "carry"]),
        carry_op=rng.choice(["add", "maximum"]),
        options=Options(
            math_fidelity=rng.choice(["LoFi", "HiFi2", "HiFi3", "HiFi4"]),
            fp32_dest_acc_en=rng.random() < 0.3,
            math_approx_mode=rng.random() < 0.2,
            dst_full_sync_en=rng.random() < 0.3,
        ),
        dtype="f32" if rng.random() < 0.2 else "bf16",
        cb_buffers=rng.choice([1, 2]),
        loops={thread: rng.choice(LOOP_FORMS) for thread in ("reader", "compute", "writer")},
    )
    # Views draw from their own stream, so a seed's expression tree, grid, loops and
    # options are the same as before views existed; half the seeds draw no views.
    views = random.Random(f"views {seed}")
    if views.random() < 0.5:
        case.extra_rows = tuple(0 if i == mask_input else views.choice([0, 1, 1, 2, 3]) for i in range(num_inputs))
    else:
        views = None
    # trils too (tril masks bf16 blocks): 40% of the bf16 seeds draw them, at the
    # positions Generator.tril is asked about and in a softmax-like chain on top
    trils = random.Random(f"tril {seed}")
    if case.dtype != "bf16" or trils.random() >= 0.4:
        trils = None
    big = trils is not None and random.Random(f"tril block {seed}").random() < 0.3
    if big:
        # up to 3x3 tiles, more than DST holds: d2m-subblock splits what skips tiles
        # (its own stream, so other tril seeds keep their draws; a softmax chain on
        # top, so that the changed kernel has a tril)
        blocks = random.Random(f"tril block {seed}")
        side = blocks.randint(2, 3)
        block = case.block = (side, side) if blocks.random() < 0.5 else (blocks.randint(1, 3), blocks.randint(2, 3))
    square = block[0] * 32 if block[0] == block[1] else 0
    generator = Generator(rng, num_inputs, square, mask_input, views, case.extra_rows, trils)
    generator.block_rows, generator.block_cols = block[0] * 32, block[1] * 32
    value = generator.value("full", rng.randint(1, 5))
    names = {}
    if trils is not None and (trils.random() < 0.4 or big):
        value, s = generator.softmax(value)
        names[s] = "s"
        case.bindings = (("s", render(s, case.shapes)),)
    case.expression, case.magnitude = value.node, value.magnitude
    branches = random.Random(f"branch {seed}")
    if case.mode == "carry" and branches.random() < 0.5:
        case.branch = (branches.choice(BRANCH_CONDITIONS), branches.choice(BRANCH_ELSES))
    case.dsl_expression = render(value.node, case.shapes, names)
    return case


def input_row(case: Case, i: int) -> str:
    """The reader's first tile row of input i on its core."""
    rows = case.input_rows(i)
    return "row" if rows == case.block[0] else f"core_index(0) * {rows}"


def kernel_module(case: Case) -> str:
    """A standalone Python module: the kernel and a `main` that checks it."""
    names = [f"in{i}" for i in range(case.num_inputs)]
    cbs = ", ".join(f"{n}_cb" for n in [*names, "out"])
    rows, cols = case.block
    per_core = case.blocks_per_core
    waits = ", ".join(f"in{i}_cb.wait() as a{i}" for i in range(case.num_inputs))
    compute_loop, compute_k = loop_header(case.loops["compute"], per_core, "j")
    reader_loop, reader_k = loop_header(case.loops["reader"], per_core, "j")
    writer_loop, writer_k = loop_header(case.loops["writer"], per_core, "j")
    reads = "\n".join(
        f"""            with in{i}_cb.reserve() as blk:
                dma(in{i}_acc[{input_row(case, i)}, (first + k) * {cols}], blk).wait()"""
        for i in range(case.num_inputs)
    )
    if any(case.extra_rows):
        factors = [(case.input_rows(i), cols) for i in range(case.num_inputs)] + [case.block]
        block_factors = "[" + ", ".join(map(str, factors)) + "]"
    else:
        block_factors = f"[{case.block}] * {case.num_inputs + 1}"
    bind = "".join(f"{name} = {source}\n                " for name, source in case.bindings)
    if case.mode == "map":
        compute_body = f"""        for j in {compute_loop}:
            with {waits}, out_cb.reserve() as o:
                {bind}o.store({case.dsl_expression})"""
        writer_body = f"""        for j in {writer_loop}:
            k = {writer_k}
            with out_cb.wait() as blk:
                dma(blk, out_acc[row, (first + k) * {cols}]).wait()"""
        out_cols = case.grid[1] * per_core * cols
    else:
        update = "acc + value" if case.carry_op == "add" else "maximum(acc, value)"
        initial = "zeros" if case.carry_op == "add" else "full"
        init = f"zeros(({rows * 32}, {cols * 32}))" if initial == "zeros" else f"full(({rows * 32}, {cols * 32}), -1000.0)"
        step = f"acc = {update}"
        if case.branch is not None:
            condition, otherwise = case.branch
            step = f"if {BRANCH_SOURCE[condition]}:\n                    acc = {update}"
            if otherwise != "none":
                other = "acc * 0.5" if otherwise == "half" else "value"
                step += f"\n                else:\n                    acc = {other}"
        compute_body = f"""        acc = {init}
        for j in {compute_loop}:
            k = {compute_k}
            with {waits}:
                {bind}value = {case.dsl_expression}
                {step}
        with out_cb.reserve() as o:
            o.store(acc)"""
        writer_body = f"""        with out_cb.wait() as blk:
            dma(blk, out_acc[row, core_index(1) * {cols}]).wait()"""
        out_cols = case.grid[1] * cols
    options = case.options
    masked = "tril(" in case.source
    return f'''"""Differential fuzz case {case.seed} (ttlang.tools.fuzz): {case.mode} over {per_core} block(s)
per core on a {case.grid[0]}x{case.grid[1]} grid. Run: python this_file.py"""

{"import math" + chr(10) if masked else ""}import torch

from ttlang import (
    CircularBuffer, Program, TensorAccessor, compute, core_index, datamovement, dma,
    full, maximum, pykernel_gen, {"tril, " if masked else ""}where, zeros,
)
from ttlang.tools import fuzz

CASE = fuzz.draw_case({case.seed})
IN_SHAPE = ({case.grid[0] * rows * 32}, {case.grid[1] * per_core * cols * 32})
OUT_SHAPE = ({case.grid[0] * rows * 32}, {out_cols * 32})


@pykernel_gen(
    grid={case.grid},
    block_factors={block_factors},
    cb_buffers={case.cb_buffers},
    math_fidelity={options.math_fidelity!r},
    fp32_dest_acc_en={options.fp32_dest_acc_en},
    math_approx_mode={options.math_approx_mode},
    dst_full_sync_en={options.dst_full_sync_en},
)
def fuzz_kernel({", ".join([*names, "out"])}):
{chr(10).join(f"    {n}_acc = TensorAccessor({n})" for n in names)}
    out_acc = TensorAccessor(out)

    @compute()
    def compute_thread({cbs}):
{compute_body}

    @datamovement()
    def reader({cbs}):
        row = core_index(0) * {rows}
        first = core_index(1) * {per_core}
        for j in {reader_loop}:
            k = {reader_k}
{reads}

    @datamovement()
    def writer({cbs}):
        row = core_index(0) * {rows}
        first = core_index(1) * {per_core}
{writer_body}

    return Program(compute_thread, reader, writer)({", ".join([*names, "out"])})


def main():
    fuzz.check(CASE, fuzz_kernel, IN_SHAPE, OUT_SHAPE)
    print("fuzz case {case.seed}: matches torch within the bound")


if __name__ == "__main__":
    main()
'''


class Mismatch(AssertionError):
    """The kernel's output is not within the bound of torch's."""


def make_inputs(case: Case, shape: tuple[int, int]) -> list[torch.Tensor]:
    """The case's input tensors: `shape` for blocks of the expression's rows, more
    rows for inputs whose blocks have extra tile rows (`Case.extra_rows`)."""
    generator = torch.Generator().manual_seed(case.seed)
    dtype = torch.float32 if case.dtype == "f32" else torch.bfloat16
    inputs = []
    for i in range(case.num_inputs):
        rows = shape[0] // case.block[0] * case.input_rows(i)
        x = torch.rand((rows, shape[1]), generator=generator, dtype=torch.float64) * 2 - 1
        if i == case.mask_input:
            x = torch.where(torch.rand(shape, generator=generator) < 0.3, torch.zeros_like(x), x)
        inputs.append(x.to(dtype))
    return inputs


def expected(case: Case, inputs: list[torch.Tensor], out_shape: tuple[int, int]):
    """The float64 output and its elementwise error bound, block by block."""
    rows, cols = case.block[0] * 32, case.block[1] * 32
    value = torch.zeros(out_shape, dtype=torch.float64)
    bound = torch.zeros(out_shape, dtype=torch.float64)
    for r in range(case.grid[0]):
        for c in range(case.grid[1]):
            total = error = None
            if case.branch is not None:  # the carry's initial value, exact
                total = torch.full((rows, cols), 0.0 if case.carry_op == "add" else -1000.0, dtype=torch.float64)
                error = torch.zeros_like(total)
            for k in range(case.blocks_per_core):
                col = (c * case.blocks_per_core + k) * cols
                blocks = [
                    x[r * ext : (r + 1) * ext, col : col + cols].double()
                    for x, ext in zip(inputs, [case.input_rows(i) * 32 for i in range(case.num_inputs)])
                ]
                v, e = reference(case.expression, blocks, case.options, case.shapes, case.dtype == "bf16")
                v, e = v.expand(rows, cols), e.expand(rows, cols)
                if case.mode == "map":
                    value[r * rows : (r + 1) * rows, col : col + cols] = v
                    bound[r * rows : (r + 1) * rows, col : col + cols] = e + U * v.abs()
                    continue
                if case.branch is not None and not branch_taken(case.branch[0], k, r, c):
                    if case.branch[1] == "half":  # a scalar multiply at the fidelity, rounded
                        fid = FIDELITY_ERROR[case.options.math_fidelity]
                        total, error = total * 0.5, error * 0.5 + (fid + U) * (total * 0.5).abs()
                    elif case.branch[1] == "value":
                        total, error = v, e + U * v.abs()
                elif total is None:
                    total, error = (v, e) if case.carry_op == "maximum" else (v, e + U * v.abs())
                elif case.carry_op == "add":
                    total, error = total + v, error + e + U * (total + v).abs()
                else:
                    total, error = torch.maximum(total, v), torch.maximum(error, e)
            if case.mode == "carry":
                value[r * rows : (r + 1) * rows, c * cols : (c + 1) * cols] = total
                bound[r * rows : (r + 1) * rows, c * cols : (c + 1) * cols] = error + U * total.abs()
    return value, bound


def check(case: Case, kernel, in_shape, out_shape) -> None:
    """Runs `kernel` on the case's inputs; raises Mismatch unless every element is
    finite and within the bound of torch's float64 value."""
    inputs = make_inputs(case, in_shape)
    dtype = torch.float32 if case.dtype == "f32" else torch.bfloat16
    out = torch.full(out_shape, float("nan"), dtype=dtype)
    kernel(*inputs, out)
    value, bound = expected(case, inputs, out_shape)
    got = out.double()
    bad = ~torch.isfinite(got) | ((got - value).abs() > bound + 1e-6)
    if bad.any():
        where = bad.nonzero()[0].tolist()
        raise Mismatch(
            f"{int(bad.sum())} of {bad.numel()} elements outside the bound; first at {where}: "
            f"got {got[tuple(where)].item()!r}, torch {value[tuple(where)].item()!r}, "
            f"bound {bound[tuple(where)].item():.4g}\n  expression: {case.source}"
        )


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_case(seed: int, work: Path) -> None:
    """Generates, compiles, runs and checks the case of `seed` (its module in `work`)."""
    case = draw_case(seed)
    path = work / f"case_{seed}.py"
    path.write_text(kernel_module(case))
    module = load(path)
    check(module.CASE, module.fuzz_kernel, module.IN_SHAPE, module.OUT_SHAPE)


def _run_one(seed: int, work: Path, failures: Path) -> str | None:
    """Runs one case; on failure keeps its module in `failures` and returns the report."""
    try:
        run_case(seed, work)
        return None
    except Exception as error:  # every failure is a finding: wrong data, rejection, crash
        failures.mkdir(parents=True, exist_ok=True)
        repro = failures / f"case_{seed}.py"
        repro.write_text((work / f"case_{seed}.py").read_text())
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return f"FAIL seed {seed}: {detail}\n  repro: python {repro}"
    finally:
        (work / f"case_{seed}.py").unlink(missing_ok=True)


def fuzz(
    seeds,
    work: Path,
    failures: Path,
    deadline: float | None = None,
    jobs: int = 1,
    log=print,
    progress_every: int = 0,
) -> tuple[int, list[int]]:
    """Runs the cases of `seeds` in `jobs` processes (until `deadline`, a
    time.monotonic()); a failing case's module is copied to `failures`. Logs a progress
    line every `progress_every` cases (0: none). Returns (cases run, failing seeds)."""
    work.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(work.resolve()))
    ran, failed = 0, []
    start = time.monotonic()

    def record(seed: int, report: str | None) -> None:
        nonlocal ran
        ran += 1
        if report is not None:
            log(report)
            failed.append(seed)
        if progress_every and ran % progress_every == 0:
            minutes = (time.monotonic() - start) / 60
            log(f"ttlang-fuzz: {ran} kernels so far, {len(failed)} failures, {minutes:.1f} min (last seed {seed})")

    if jobs == 1:
        for seed in seeds:
            if deadline is not None and time.monotonic() > deadline:
                break
            record(seed, _run_one(seed, work, failures))
        return ran, failed
    # Spawned, not forked: torch's and the toolchain's threads do not survive a fork.
    run_one = importlib.import_module("ttlang.tools.fuzz")._run_one
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        pending = {}
        for seed in seeds:
            if deadline is not None and time.monotonic() > deadline:
                break
            pending[pool.submit(run_one, seed, work, failures)] = seed
            if len(pending) >= 4 * jobs:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    record(pending.pop(future), future.result())
        for future in list(pending):
            record(pending.pop(future), future.result())
    return ran, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ttlang-fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="first seed (cases use seed, seed+1, ...)")
    parser.add_argument("--count", type=int, default=100, help="cases to run (without --minutes)")
    parser.add_argument("--minutes", type=float, help="run cases until this many minutes have passed")
    parser.add_argument("--jobs", type=int, default=1, help="cases run in parallel (processes)")
    parser.add_argument("--work-dir", type=Path, default=Path("fuzz-work"), help="where case modules are written")
    parser.add_argument("--failures", type=Path, default=Path("fuzz-failures"), help="where failing cases are kept")
    parser.add_argument("--progress", type=int, default=0, metavar="N", help="print a progress line every N cases")
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.minutes is not None:
        seeds = iter(range(args.seed, sys.maxsize))
        deadline = start + 60 * args.minutes
    else:
        seeds, deadline = range(args.seed, args.seed + args.count), None
    ran, failed = fuzz(seeds, args.work_dir, args.failures, deadline, args.jobs, progress_every=args.progress)
    minutes = (time.monotonic() - start) / 60
    print(f"ttlang-fuzz: {ran} kernels, {len(failed)} failures, {minutes:.1f} min (seeds from {args.seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
