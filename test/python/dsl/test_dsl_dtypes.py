"""The `dtypes` option (device formats by tensor name, ttnn's dtype names) in the IR: a
bfloat8_b tensor is bfp8_b in DRAM and in its CB, and bf16 to compute. Its errors are
in test_dsl_errors.py."""

from __future__ import annotations

from ttlang import CircularBuffer, Program, TensorSpec, compute, pykernel_gen

BLOCK = TensorSpec((64, 64))


def test_a_bfp8_tensor_is_bfp8_in_dram_and_its_cb_and_bf16_to_compute():
    @pykernel_gen(grid=(1, 1), block_factors=[(2, 2)] * 3, dtypes={"lhs": "bfloat8_b"})
    def add(lhs, rhs, out):
        @compute()
        def body(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
            with lhs_cb.wait() as l, rhs_cb.wait() as r, out_cb.reserve() as o:
                o.store(l + r)

        return Program(body)(lhs, rhs, out)

    module = str(add.frontend_module(BLOCK, BLOCK, BLOCK))
    assert "memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<dram>>" in module
    assert "!d2m.cb<memref<2x2x!ttcore.tile<32x32, bfp8_b>, #ttcore.memory_space<l1>>" in module
    # The wait hands compute the tiles as the unpacker does: bf16.
    assert "-> tensor<2x2x!ttcore.tile<32x32, bf16>>" in module
    assert "tensor<2x2x!ttcore.tile<32x32, bfp8_b>>" not in module
