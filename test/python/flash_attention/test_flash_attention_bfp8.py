"""FlashAttention with K and V stored as bfp8_b (`kv_dtype="bfloat8_b"`, as tt-metal's SDPA
keeps them) against torch's scaled_dot_product_attention.

Two references: SDPA on K and V quantized the way the host stores them
(`tiles.as_stored`), which leaves only the kernel's own error, held to the bf16 test's
tolerances (PCC >= 0.999, max abs 0.03); and SDPA on the unquantized bf16 inputs, where
bfp8_b's own loss adds: a unit-normal value keeps its magnitude to 1/64 of its face row's
largest power of two, so it moves by at most half a step, 2^-6 for rows below 4; an
output is a convex combination of V rows, so V's share is at most 0.016, and K's moves
scores by q.dk/sqrt(D), a few thousandths: 0.05 max abs, PCC >= 0.999 (tt-metal holds
bfp8 SDPA to PCC >= 0.994)."""

from __future__ import annotations

import re

import pytest
import torch

from ttlang.runtime import tiles

MIN_PCC = 0.999
MAX_ABS_QUANTIZED = 0.03
MAX_ABS_UNQUANTIZED = 0.05


def pcc(actual: torch.Tensor, expected: torch.Tensor) -> float:
    a, b = actual.double().flatten(), expected.double().flatten()
    return torch.corrcoef(torch.stack([a, b]))[0, 1].item()


def max_abs(actual: torch.Tensor, expected: torch.Tensor) -> float:
    return (actual.double() - expected.double()).abs().max().item()


@pytest.mark.parametrize(
    "shape, causal, grid",
    [((1, 2, 256, 64), False, (1, 2)), ((1, 2, 256, 128), True, (2, 2))],
    ids=["s256-d64-1x2", "s256-d128-causal-2x2"],
)
def test_bfp8_k_and_v_match_torch_sdpa(fa, shape, causal, grid):
    generator = torch.Generator().manual_seed(sum(shape))
    q, k, v = (torch.randn(shape, generator=generator).to(torch.bfloat16) for _ in range(3))
    compiled = fa.compile_flash_attention(shape, causal=causal, grid=grid, kv_dtype="bfloat8_b")
    formats = {buffer.name: buffer.data_format for buffer in compiled.artifact.program.buffers}
    assert (formats["q"], formats["k"], formats["v"], formats["out"]) == ("bf16", "bfp8_b", "bfp8_b", "bf16")
    # The unpacker is reconfigured for bfp8_b before each matmul reads K or V (srcA).
    compute = next(kernel for kernel in compiled.artifact.program.kernels if kernel.name.endswith("_compute"))
    assert "reconfig_data_format_srca(k_cb)" in compute.source
    assert "reconfig_data_format_srca(v_cb)" in compute.source
    out = compiled.run(q, k, v)

    k_stored, v_stored = (tiles.as_stored(t.reshape(-1, shape[-1]), "bfp8_b").reshape(shape) for t in (k, v))
    quantized = torch.nn.functional.scaled_dot_product_attention(q.float(), k_stored, v_stored, is_causal=causal)
    exact = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    assert pcc(out, quantized) >= MIN_PCC, pcc(out, quantized)
    assert max_abs(out, quantized) <= MAX_ABS_QUANTIZED, max_abs(out, quantized)
    assert pcc(out, exact) >= MIN_PCC, pcc(out, exact)
    assert max_abs(out, exact) <= MAX_ABS_UNQUANTIZED, max_abs(out, exact)
    # The kernel computed with the quantized K and V, not the bf16 ones.
    assert (out.double() - quantized.double()).abs().mean() < (out.double() - exact.double()).abs().mean()


def test_bfp8_k_and_v_multicast_in_pieces(fa):
    """1024-row K/V chunks of D = 64 in bfp8_b (32x2 tiles of 1088 B, 68 KiB): the
    generated reader multicasts each in two pieces of 16 tile rows (34,816 B, at that
    offset in the block), so the pieces' addresses follow the format's tile size. The
    receiving grid row attends with what the pieces wrote (kernel error only, against
    SDPA on the stored K and V)."""
    shape = (1, 2, 1024, 64)
    generator = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(shape, generator=generator).to(torch.bfloat16) for _ in range(3))
    compiled = fa.compile_flash_attention(
        shape, q_chunk=128, k_chunk=1024, grid=(2, 2), kv_dtype="bfloat8_b"
    )
    reader = compiled.artifact.sources["flash_attention_reader"]
    sizes = re.findall(r"noc_async_write_multicast\([^,]+, [^,]+, (\d+),", reader)
    assert sizes and set(sizes) == {str(16 * 2 * 1088)}
    out = compiled.run(q, k, v)
    k_stored, v_stored = (tiles.as_stored(t.reshape(-1, shape[-1]), "bfp8_b").reshape(shape) for t in (k, v))
    quantized = torch.nn.functional.scaled_dot_product_attention(q.float(), k_stored, v_stored)
    assert pcc(out, quantized) >= MIN_PCC, pcc(out, quantized)
    assert max_abs(out, quantized) <= MAX_ABS_QUANTIZED, max_abs(out, quantized)
