"""Index values as linear forms: `c + sum(k_i * v_i)` over the SSA values `v_i` the
arithmetic starts from (loop induction variables, kernel arguments, pointers), read
back from the `arith` ops that compute them (constants, `addi`, `subi`, `muli` by a
constant, casts). Passes use it to tell which pages of a CB an operation indexes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import product

from xdsl.dialects import arith, scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from ttlang.dialects.ttcore import constant_int


@dataclass(frozen=True)
class LinearForm:
    """`constant + sum(coefficient * value)`; `terms` holds no zero coefficient."""

    constant: int
    terms: dict[SSAValue, int] = field(default_factory=dict)

    def coefficient(self, value: SSAValue) -> int:
        return self.terms.get(value, 0)

    def without(self, value: SSAValue) -> LinearForm:
        return LinearForm(self.constant, {v: k for v, k in self.terms.items() if v is not value})

    def scaled_down(self, divisor: int) -> LinearForm | None:
        """The form divided by `divisor`, when every coefficient and the constant divide."""
        if self.constant % divisor or any(k % divisor for k in self.terms.values()):
            return None
        return LinearForm(self.constant // divisor, {v: k // divisor for v, k in self.terms.items()})

    def values(self, ranges: dict[SSAValue, range]) -> Iterator[int]:
        """The form's value at every point of `ranges` (one range per term)."""
        names = list(self.terms)
        for point in product(*(ranges[v] for v in names)):
            yield self.constant + sum(self.terms[v] * x for v, x in zip(names, point))


def _combine(lhs: LinearForm, rhs: LinearForm, sign: int) -> LinearForm:
    terms = dict(lhs.terms)
    for value, k in rhs.terms.items():
        terms[value] = terms.get(value, 0) + sign * k
    return LinearForm(lhs.constant + sign * rhs.constant, {v: k for v, k in terms.items() if k})


def _scale(form: LinearForm, factor: int) -> LinearForm:
    if factor == 0:
        return LinearForm(0)
    return LinearForm(form.constant * factor, {v: k * factor for v, k in form.terms.items()})


def linear_form(value: SSAValue) -> LinearForm:
    """`value` as a linear form; a value no `arith` op above computes linearly (a loop
    variable, an argument, a product of two variables) is a term of its own."""
    constant = constant_int(value)
    if constant is not None:
        return LinearForm(constant)
    op = value.owner
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        return _combine(linear_form(op.lhs), linear_form(op.rhs), 1 if isinstance(op, arith.AddiOp) else -1)
    if isinstance(op, arith.MuliOp):
        lhs, rhs = linear_form(op.lhs), linear_form(op.rhs)
        if not rhs.terms:
            return _scale(lhs, rhs.constant)
        if not lhs.terms:
            return _scale(rhs, lhs.constant)
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        return linear_form(op.input)
    return LinearForm(0, {value: 1})


def constant_range(loop: scf.ForOp) -> range | None:
    """The induction variable's values when the loop's bounds and step are constants."""
    bounds = [linear_form(v) for v in (loop.lb, loop.ub, loop.step)]
    if any(b.terms for b in bounds) or bounds[2].constant <= 0:
        return None
    return range(bounds[0].constant, bounds[1].constant, bounds[2].constant)


def loop_ranges(op: Operation, outer: Operation) -> dict[SSAValue, range] | None:
    """The ranges of the induction variables of the loops around `op` inside `outer`
    (`outer`'s own excluded); None when one of them is not constant or `op` sits in a
    region other than a loop's body (an `scf.if` branch) below `outer`."""
    ranges: dict[SSAValue, range] = {}
    parent = op.parent_op()
    while parent is not None and parent is not outer:
        if not isinstance(parent, scf.ForOp):
            return None
        iteration = constant_range(parent)
        if iteration is None:
            return None
        induction = parent.body.block.args[0]
        assert isinstance(induction, BlockArgument)
        ranges[induction] = iteration
        parent = parent.parent_op()
    return ranges if parent is outer else None
