"""FlashAttention (examples/flash_attention.py) against torch's scaled_dot_product_attention.

A lean covering set rather than the cartesian product: every head size, sequence
length, masking, batch·heads count, DST mode and grid appears, with several chunk
sizes (equal and unequal, defaults and explicit), the 2048-long sequence once.
"""

from __future__ import annotations

import re

import pytest
import torch

MIN_PCC = 0.999
MAX_ABS = 0.03
"""Outputs are averages of v rows (|o| < ~3 for unit normal inputs): 0.03 is two bf16
ulps at 2. The kernel keeps P, the running sum and the accumulator in bf16 CBs (even
with an fp32 DST, the values are packed to bf16 between operators) and uses the
approximate exp (relative error < 3.5e-3), as tt-metal's SDPA does."""

CASES = [
    # (batch, heads, seq_len, head_dim), causal, q_chunk, k_chunk, grid, fp32_dest_acc
    pytest.param((1, 1, 128, 64), False, None, None, (1, 1), False, id="s128-d64-bh1-1x1"),
    pytest.param(
        (1, 1, 128, 128),
        True,
        32,
        64,
        (1, 1),
        True,
        id="s128-d128-causal-q32k64-1x1-fp32",
    ),
    pytest.param((2, 4, 512, 64), True, None, None, (8, 8), False, id="s512-d64-bh8-causal-8x8"),
    pytest.param(
        (1, 8, 512, 128),
        False,
        64,
        128,
        (8, 8),
        True,
        id="s512-d128-bh8-q64k128-8x8-fp32",
    ),
    pytest.param((1, 1, 512, 64), False, 128, 32, (8, 6), False, id="s512-d64-q128k32-8x6"),
    # two heads per core, one Q chunk each: the cores' K/V counts differ from head to
    # head, so the compiler must not multicast (the CB slots fall out of step)
    pytest.param((1, 2, 256, 64), True, 64, 64, (1, 4), False, id="s256-d64-bh2-causal-q64k64-1x4"),
    # K/V chunks of four Q chunks: the implicit kernel's diagonal step reads the keys
    # up to its Q chunk's last query (views), one step per position of the Q chunk
    pytest.param((1, 2, 256, 64), True, 32, 128, (8, 2), False, id="s256-d64-bh2-causal-q32k128-8x2"),
    pytest.param(
        (1, 8, 2048, 128),
        True,
        None,
        None,
        (8, 8),
        False,
        id="s2048-d128-bh8-causal-8x8",
    ),
]


KERNELS = ("implicit", "explicit")


def implicit_takes(causal: bool, q_chunk: int | None, k_chunk: int | None) -> bool:
    """compile_flash_attention's check: causal k_chunk a multiple of q_chunk."""
    return not (causal and q_chunk and k_chunk and k_chunk % q_chunk)


KERNEL_CASES = [
    pytest.param(*case.values, kernel, id=f"{case.id}-{kernel}")
    for case in CASES
    for kernel in KERNELS
    if kernel == "explicit" or implicit_takes(*case.values[1:4])
]
"""Every case with each kernel that handles it: the implicit kernel's causal diagonal
of a Q chunk lies in one K/V chunk (k_chunk a multiple of q_chunk)."""


def random_inputs(shape, seed: int):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=generator).to(torch.bfloat16) for _ in range(3)]


def pcc(actual: torch.Tensor, expected: torch.Tensor) -> float:
    a, b = actual.double().flatten(), expected.double().flatten()
    return torch.corrcoef(torch.stack([a, b]))[0, 1].item()


@pytest.mark.parametrize(
    "shape, causal, q_chunk, k_chunk, grid, fp32_dest_acc, kernel", KERNEL_CASES
)
def test_matches_torch_sdpa(fa, shape, causal, q_chunk, k_chunk, grid, fp32_dest_acc, kernel):
    q, k, v = random_inputs(shape, seed=sum(shape))
    out = fa.flash_attention(
        q,
        k,
        v,
        causal=causal,
        q_chunk=q_chunk,
        k_chunk=k_chunk,
        grid=grid,
        fp32_dest_acc=fp32_dest_acc,
        kernel=kernel,
    )
    expected = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=causal
    )
    assert out.shape == expected.shape and out.dtype == torch.bfloat16
    error = (out.double() - expected.double()).abs().max().item()
    correlation = pcc(out, expected)
    assert correlation >= MIN_PCC, f"PCC {correlation:.6f} < {MIN_PCC}"
    assert error <= MAX_ABS, f"max abs error {error:.4g} > {MAX_ABS}"


def test_explicit_scale(fa):
    shape = (1, 2, 128, 64)
    q, k, v = random_inputs(shape, seed=7)
    out = fa.flash_attention(q, k, v, scale=0.3, grid=(1, 2))
    expected = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), scale=0.3
    )
    assert pcc(out, expected) >= MIN_PCC
    assert (out.double() - expected.double()).abs().max().item() <= MAX_ABS


def test_default_chunks_give_every_core_a_unit(fa):
    """S = 512 over 8 heads on 8x8: 64-row Q chunks make exactly one unit per core, and
    256-row K chunks two K steps (a single 512-row step would fit L1 but leave the K/V
    read nothing to overlap)."""
    compiled = fa.compile_flash_attention((1, 8, 512, 64), grid=(8, 8))
    assert (compiled.q_chunk, compiled.k_chunk) == (64, 256)


def test_default_chunks_prefer_128_row_q_chunks_and_the_widest_k_chunk(fa):
    """S = 2048, D = 128 on 8x8: 128-row Q chunks give every core two units, and 512
    rows is the widest K chunk whose CBs fit L1 next to them (1024 needs 2322 KiB)."""
    compiled = fa.compile_flash_attention((1, 8, 2048, 128), grid=(8, 8))
    assert (compiled.q_chunk, compiled.k_chunk, compiled.grid) == (128, 512, (8, 8))


def test_implicit_kernel_multicasts_k_and_v_along_grid_columns(fa):
    """The compiler-generated reader: row 0 of each grid column reads the K/V chunks
    and multicasts them down the column; the kernel itself has no data-movement thread."""
    compiled = fa.compile_flash_attention((1, 8, 512, 64), grid=(8, 8))
    assert compiled.kernel == "implicit" and compiled.grid == (8, 8)
    reader = compiled.artifact.sources["flash_attention_reader"]
    assert "noc_async_write_multicast" in reader
    assert "noc_async_write_tile" in compiled.artifact.sources["flash_attention_writer"]


def test_implicit_kernel_multicasts_large_kv_chunks_in_pieces(fa):
    """512-row K/V chunks of D = 64 (16x2 bf16 tiles, 64 KiB): d2m-generate-datamovement
    reads and multicasts each in two pieces of 8 tile rows (32 KiB), the second read
    while the first is multicast. The other cores attend with what the pieces wrote into
    their CBs, so the output checks each piece's bytes and offset."""
    shape = (1, 8, 512, 64)
    q, k, v = random_inputs(shape, seed=11)
    compiled = fa.compile_flash_attention(shape, q_chunk=64, k_chunk=512, grid=(8, 8))
    assert compiled.kernel == "implicit"
    out = compiled.run(q, k, v)
    expected = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float())
    error = (out.double() - expected.double()).abs().max().item()
    correlation = pcc(out, expected)
    assert correlation >= MIN_PCC, f"PCC {correlation:.6f} < {MIN_PCC}"
    assert error <= MAX_ABS, f"max abs error {error:.4g} > {MAX_ABS}"
    reader = compiled.artifact.sources["flash_attention_reader"]
    sizes = re.findall(r"noc_async_write_multicast\([^,]+, [^,]+, (\d+),", reader)
    assert sizes and set(sizes) == {str(8 * 2 * 2048)}


def test_causal_diagonal_blocks_share_the_full_blocks_l1(fa):
    """Causal, D = 128, 512-row K chunks: the diagonal steps' score and P blocks (4, 8
    and 12 tile columns, one loop each) would bring the CBs to 1722 KiB; their loops run
    after the full blocks' are through, so ttkernel-share-cb-l1 puts them in the full
    blocks' L1 (1338 KiB), and the output, which reads them, still matches torch."""
    shape = (1, 2, 1024, 128)
    q, k, v = random_inputs(shape, seed=5)
    compiled = fa.compile_flash_attention(shape, causal=True, q_chunk=128, k_chunk=512, grid=(2, 2))
    cbs = compiled.artifact.program.cbs
    holders = {cb.shares_l1_with for cb in cbs if cb.shares_l1_with >= 0}
    assert len(holders) == 2 and all(cbs[h].shares_l1_with < 0 for h in holders)
    assert sum(cb.num_pages * cb.page_size for cb in cbs if cb.shares_l1_with < 0) <= 1364 * 1024
    out = compiled.run(q, k, v)
    expected = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=True
    )
    error = (out.double() - expected.double()).abs().max().item()
    correlation = pcc(out, expected)
    assert correlation >= MIN_PCC, f"PCC {correlation:.6f} < {MIN_PCC}"
    assert error <= MAX_ABS, f"max abs error {error:.4g} > {MAX_ABS}"


def test_implicit_causal_needs_k_chunks_a_multiple_of_q_chunks(fa):
    with pytest.raises(ValueError, match="k_chunk must be a multiple of q_chunk"):
        fa.compile_flash_attention(
            (1, 1, 256, 64), causal=True, q_chunk=128, k_chunk=64, kernel="implicit"
        )


def test_implicit_causal_pairs_short_and_long_rows(fa):
    """[1, 8, 2048, 64] causal, the default kernel: 128-row Q chunks, two per core of
    the 8x8 grid (dealt serpentine), K chunks four times as wide (the largest that
    fits), the diagonal masked with tril: its mask tiles filled in the kernel
    (fill_causal_mask_tile) by the writer, one band of 4 + 16 - 1 tiles for the four
    diagonal steps (4x4 to 4x16 tiles) in a kernel-local CB, with no mask tensor in
    DRAM, and the K/V chunks multicast along grid columns."""
    compiled = fa.compile_flash_attention((1, 8, 2048, 64), causal=True)
    assert compiled.kernel == "implicit"
    assert (compiled.q_chunk, compiled.k_chunk, compiled.grid) == (128, 512, (8, 8))
    sources = compiled.artifact.sources
    masks = [name for name, source in sources.items() if "fill_causal_mask_tile(" in source]
    multicasts = [name for name, source in sources.items() if "noc_async_write_multicast" in source]
    assert masks and multicasts and masks != multicasts  # the mask fill and the K/V reader
    program = compiled.artifact.program
    assert [buffer.name for buffer in program.buffers] == ["q", "k", "v", "out"]
    (mask_cb,) = [cb for cb in program.cbs if cb.name == "tril_mask_cb"]
    assert mask_cb.num_pages == 128 // 32 + 512 // 32 - 1


def test_causal_mask_band(fa):
    """Each diagonal block's mask, cut from the band at the reader's column, is the
    causal mask of that block."""
    q_chunk, k_chunk, seq_len = 64, 96, 192
    band = fa.explicit.causal_mask_band(q_chunk, k_chunk)
    full = torch.zeros(seq_len, seq_len).masked_fill(
        torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1), float("-inf")
    )
    for i in range(seq_len // q_chunk):
        for j in range(seq_len // k_chunk):
            rows, cols = (
                slice(i * q_chunk, (i + 1) * q_chunk),
                slice(j * k_chunk, (j + 1) * k_chunk),
            )
            diagonal = j * k_chunk < (i + 1) * q_chunk and (j + 1) * k_chunk > i * q_chunk
            if not diagonal:
                continue
            start = k_chunk - 32 + j * k_chunk - i * q_chunk
            assert torch.equal(band[:, start : start + k_chunk].float(), full[rows, cols])


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"q_chunk": 48},
            r"q_chunk=48 must be a positive multiple of 32 dividing seq_len=256",
        ),
        (
            {"k_chunk": 512},
            r"k_chunk=512 must be a positive multiple of 32 dividing seq_len=256",
        ),
        ({"grid": (9, 8)}, r"grid \(9, 8\) does not fit the 8x8 compute grid"),
    ],
)
def test_bad_choices_are_named(fa, options, message):
    with pytest.raises(ValueError, match=message):
        fa.compile_flash_attention((1, 1, 256, 64), **options)


def test_chunks_too_big_for_l1(fa):
    with pytest.raises(
        ValueError,
        match=r"q_chunk=512, k_chunk=512: needs \d+ KiB of CBs, a core has 1364 KiB",
    ):
        fa.compile_flash_attention((1, 1, 512, 128), q_chunk=512, k_chunk=512, grid=(1, 1))


def test_chunks_too_big_for_l1_fail_before_the_passes_after_the_cb_layout(fa, monkeypatch):
    """The driver checks the CBs against L1 once ttkernel-share-cb-l1 has laid them out:
    the chunk search does not run cse, canonicalization and EmitC for a kernel that
    cannot fit (half of a causal compilation)."""
    from ttlang.conversion.ttkernel_to_emitc import ConvertTTKernelToEmitCPass

    def fail(self, ctx, module):
        raise AssertionError("convert-ttkernel-to-emitc ran on a kernel too big for L1")

    monkeypatch.setattr(ConvertTTKernelToEmitCPass, "apply", fail)
    with pytest.raises(ValueError, match=r"q_chunk=512, k_chunk=512: needs \d+ KiB of CBs"):
        fa.compile_flash_attention((1, 1, 512, 128), q_chunk=512, k_chunk=512, grid=(1, 1))


def test_bad_shapes(fa):
    with pytest.raises(ValueError, match="seq_len and head_dim must be multiples of 32"):
        fa.compile_flash_attention((1, 1, 100, 64))
    q = torch.zeros(1, 1, 128, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="q, k and v must have one shape"):
        fa.flash_attention(q, q[:, :, :64], q)
