"""Blocked matmul with a K loop (partials through an intermediate CB), against torch."""

import emulator_programs as programs
import pytest
import torch
from emulator_checks import assert_close

from ttlang.runtime import run_program
from ttlang.runtime.program import ComputeConfig


def run_matmul(m, k, n, grid, **options):
    torch.manual_seed(0)
    a = torch.randn(m, k, dtype=torch.bfloat16)
    b = torch.randn(k, n, dtype=torch.bfloat16)
    result = run_program(programs.matmul(m, k, n, grid, **options), {"a": a, "b": b, "out": torch.zeros(m, n)})
    return result, a.float() @ b.float()


def test_matmul_k_loop_bf16_dst():
    # 4 K blocks: partial sums go through the bf16 intermediate CB three times.
    result, expected = run_matmul(128, 256, 128, (1, 2), k_block=2, subblock=(2, 2))
    # bf16 DST rounds after every tile product (as hardware): errors of a few bf16 ulps of |out| ~ 16.
    assert_close(result.outputs["out"], expected, min_pcc=0.999, max_abs=1.0)
    assert result.report.flops == 2 * 128 * 256 * 128


@pytest.mark.parametrize("out_format", ["bf16", "bfp8_b"])
def test_matmul_packer_l1_acc_out_blocks(out_format):
    # tt-metal's tuned GEMM configuration: 4 K blocks accumulated in L1 by the packer,
    # 2x2 out blocks per core on a 2x2 multicast grid, the output CB the size of an out
    # block (sharing the partial sums' L1 when bf16), the output in out_format.
    result, expected = run_matmul(
        256, 256, 256, (2, 2), k_block=2, subblock=(2, 2), multicast=True,
        l1_acc=True, out_blocks=(2, 2), out_cb_block=True, out_format=out_format,
    )
    # bf16 partial sums rounded after every K block; bfp8_b output: 7-bit mantissas on top.
    assert_close(result.outputs["out"], expected, min_pcc=0.999, max_abs=1.0 if out_format == "bf16" else 2.0)


def test_matmul_fp32_dest_is_more_accurate_than_bf16():
    config = ComputeConfig(fp32_dest_acc_en=True)
    fp32_result, expected = run_matmul(64, 256, 64, (1, 1), k_block=8, subblock=(2, 2), compute_config=config)
    bf16_result, _ = run_matmul(64, 256, 64, (1, 1), k_block=8, subblock=(2, 2))
    fp32_error = (fp32_result.outputs["out"].float() - expected).abs().max()
    bf16_error = (bf16_result.outputs["out"].float() - expected).abs().max()
    # fp32 DST: one bf16 rounding at pack, so within half a bf16 ulp of |out| < 64.
    assert fp32_error <= 0.125
    assert fp32_error < bf16_error


@pytest.mark.parametrize(("fidelity", "cycles_per_tile"), [("LoFi", 16), ("HiFi4", 64)])
def test_matmul_cost_follows_fidelity(fidelity, cycles_per_tile):
    result, _ = run_matmul(64, 64, 64, (1, 1), k_block=2, subblock=(2, 2), compute_config=ComputeConfig(fidelity))
    compute = next(t for t in result.report.cores[0].threads if t.thread == "compute")
    tile_matmuls = 2 * 2 * 2
    assert compute.busy >= tile_matmuls * cycles_per_tile
    assert compute.busy < tile_matmuls * cycles_per_tile + 500  # plus init, CB, pack and sync costs
    assert result.report.math_fidelity == fidelity


def test_host_threads_change_neither_results_nor_cycles(monkeypatch):
    # Deferred matmuls run on TTEMU_THREADS host threads (lib/math_lanes.h).
    runs = {}
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("TTEMU_THREADS", threads)
        runs[threads], expected = run_matmul(128, 256, 128, (1, 1), k_block=8, subblock=(2, 2))
        assert_close(runs[threads].outputs["out"], expected, min_pcc=0.999, max_abs=1.0)
    for threads in ("2", "3"):
        assert torch.equal(runs[threads].outputs["out"], runs["1"].outputs["out"])
        assert [c.cycles for c in runs[threads].report.cores] == [c.cycles for c in runs["1"].report.cores]


def test_half_sync_overlaps_packing_with_math():
    # One K block, then 4 subblocks of math and packing: compute-bound at the end.
    options = {"k_block": 8, "subblock": (2, 2)}
    half, _ = run_matmul(128, 256, 128, (1, 1), **options)
    full, _ = run_matmul(128, 256, 128, (1, 1), **options, compute_config=ComputeConfig(dst_full_sync_en=True))
    assert torch.equal(half.outputs["out"], full.outputs["out"])

    def compute(result):
        return next(t for t in result.report.cores[0].threads if t.thread == "compute")

    # Same work on the math side; with one DST section math also waits for every pack.
    assert compute(half).busy == compute(full).busy
    assert compute(half).cycles < compute(full).cycles
