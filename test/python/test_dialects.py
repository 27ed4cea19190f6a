"""What the lit tests cannot reach: the Python builders of ttcore/d2m, the tile byte
sizes, and the pass registry's lazy entries."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from ttlang.dialects import register_dialects
from ttlang.dialects.d2m import (
    CBType,
    GenericOp,
    PopOp,
    ThreadType,
    TileAddOp,
    TileMatmulOp,
    WaitOp,
)
from ttlang.dialects.ttcore import DataType, GridAttr, MemorySpace, MemorySpaceAttr, TileType
from ttlang.pipeline import pass_factories


@pytest.mark.parametrize(
    ("data_type", "expected_bytes"),
    [(DataType.BF16, 2048), (DataType.F32, 4096), (DataType.BFP8_B, 1088)],
)
def test_tile_size_bytes(data_type: DataType, expected_bytes: int) -> None:
    # bf16/f32: 1024 elements; bfp8_b: 1024 mantissas + 64 shared exponents.
    assert TileType(data_type).size_bytes() == expected_bytes


def _block(space: MemorySpace, data_type: DataType = DataType.BF16) -> MemRefType:
    return MemRefType(TileType(data_type), [2, 2], memory_space=MemorySpaceAttr(space))


def test_built_generic_verifies_and_round_trips() -> None:
    """A one-thread generic built with the op constructors the DSL frontend uses
    verifies, and prints to text that parses back to the same text."""
    dram, l1 = _block(MemorySpace.DRAM), _block(MemorySpace.L1)
    cb = CBType(l1)
    assert cb.buffers.data == 2  # double buffering unless told otherwise

    body = Block(arg_types=[cb])
    wait = WaitOp(body.args[0], l1)
    body.add_ops([wait, PopOp(body.args[0])])
    assert wait.result.type == l1

    func_body = Block(arg_types=[dram])
    func_body.add_ops(
        [
            GenericOp(
                inputs=[func_body.args[0]],
                outputs=[],
                grid=GridAttr(1, 1),
                block_factors=[1, 1],
                threads=[ThreadType.DATAMOVEMENT],
                thread_regions=[Region(body)],
            ),
            ReturnOp(),
        ]
    )
    module = ModuleOp([FuncOp("reader", ((dram,), ()), Region(func_body))])
    module.verify()

    text = str(module)
    ctx = Context()
    register_dialects(ctx)
    reparsed = Parser(ctx, text).parse_module()
    assert str(reparsed) == text
    assert "block_factors = [1, 1], threads = [#d2m.thread<datamovement>]" in text


def test_tile_ops_take_their_result_type_from_operands() -> None:
    bf16, f32 = TileType(DataType.BF16), TileType(DataType.F32)
    block = Block(arg_types=[bf16, bf16, f32])
    a, b, acc = block.args
    assert TileAddOp(a, b).result.type == bf16
    matmul = TileMatmulOp(a, b, acc)
    assert matmul.result.type == f32
    block.add_ops([TileAddOp(a, b), matmul])
    for op in block.ops:
        op.verify()


def test_tile_op_with_mixed_types_fails_verification() -> None:
    block = Block(arg_types=[TileType(DataType.BF16), TileType(DataType.F32)])
    add = TileAddOp(*block.args)
    block.add_op(add)
    with pytest.raises(VerifyException, match="all tiles of this op must have the same type"):
        add.verify()


def test_every_registered_pass_loads_under_its_name() -> None:
    # The registry names passes by string; a typo would only show when the pass is used.
    for name, factory in pass_factories().items():
        assert factory().name == name


def test_cb_prints_its_buffer_count_only_when_not_the_default() -> None:
    l1 = _block(MemorySpace.L1)
    assert str(CBType(l1, buffers=3)).endswith(", 3>")
    assert str(CBType(l1)) == f"!d2m.cb<{l1}>"


def test_cb_outside_l1_fails_verification() -> None:
    with pytest.raises(VerifyException, match="a circular buffer holds blocks in L1"):
        CBType(_block(MemorySpace.DRAM))
