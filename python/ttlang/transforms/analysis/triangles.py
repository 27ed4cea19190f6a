"""The `d2m.triangles` of a `linalg.generic` (d2m-skip-masked-tiles): `#d2m.triangle<rows
= r, cols = c, diagonal = k>` attributes, each skipping the iterations whose index
along loop dim c exceeds the index along loop dim r plus k. Passes that rebuild a
generic keep its list, with the dims renumbered where the loop dims change
(d2m-elementwise-fusion's epilogues); d2m-lower-to-loops guards the skipped tiles."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Operation

from ttlang.dialects import d2m


def triangles(op: Operation) -> list[d2m.TriangleAttr]:
    attr = op.attributes.get(d2m.TRIANGLES_ATTR)
    if attr is None:
        return []
    assert isinstance(attr, ArrayAttr), f"compiler bug: {d2m.TRIANGLES_ATTR} is not a list"
    return [t for t in attr.data if isinstance(t, d2m.TriangleAttr)]


def set_triangles(op: Operation, kept: Sequence[d2m.TriangleAttr]) -> None:
    unique = list(dict.fromkeys(kept))
    if unique:
        op.attributes[d2m.TRIANGLES_ATTR] = ArrayAttr(unique)
    else:
        op.attributes.pop(d2m.TRIANGLES_ATTR, None)


def add_triangle(op: Operation, triangle: d2m.TriangleAttr) -> None:
    set_triangles(op, [*triangles(op), triangle])


def renumbered(kept: Sequence[d2m.TriangleAttr], dims: Sequence[int]) -> list[d2m.TriangleAttr]:
    """`kept` with loop dim d renamed `dims[d]`."""
    return [d2m.TriangleAttr(dims[t.rows.data], dims[t.cols.data], t.diagonal.data) for t in kept]
