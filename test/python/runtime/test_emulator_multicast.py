"""Multicast and semaphores: one tile from core (0,0) to a whole grid, then a 2048^3
bf16 matmul sharded over the 8x8 grid with its input blocks multicast along rows and
columns; both against torch."""

import emulator_programs as programs
import torch
from emulator_checks import assert_close

from ttlang.runtime import run_program


def test_multicast_tile_with_semaphore_handshake():
    torch.manual_seed(0)
    x = torch.randn(32, 32).to(torch.bfloat16)
    result = run_program(programs.multicast_tile((2, 3)), {"x": x, "out": torch.zeros(64, 96)})
    assert torch.equal(result.outputs["out"], x.repeat(2, 3))
    # The receivers waited for the sender's multicast: their reader threads were idle a while.
    receiver = result.report.cores[-1].threads[0]
    assert receiver.thread == "reader" and receiver.waiting > 0


def test_matmul_2048_cubed_on_8x8_grid():
    torch.manual_seed(0)
    a = torch.randn(2048, 2048, dtype=torch.bfloat16)
    b = torch.randn(2048, 2048, dtype=torch.bfloat16)
    program = programs.matmul(2048, 2048, 2048, (8, 8), k_block=8, multicast=True)
    result = run_program(program, {"a": a, "b": b, "out": torch.zeros(2048, 2048, dtype=torch.bfloat16)})
    out = result.outputs["out"].float()
    assert_close(out, a.float() @ b.float(), min_pcc=0.9999, max_abs=8.0)
    # The hardware numerics exactly: a bf16 DST rounds after every tile product, so the
    # result is the K-tile sum rounded to bf16 step by step (checked on 64 rows).
    stepwise = torch.zeros(64, 2048)
    for k in range(0, 2048, 32):
        stepwise = (stepwise + a[:64, k : k + 32].float() @ b[k : k + 32].float()).to(torch.bfloat16).float()
    assert torch.equal(out[:64], stepwise)
    report = result.report
    assert report.flops == 2 * 2048**3
    assert len(report.cores) == 64
    assert 0 < report.achieved_flops_per_s <= report.peak_flops_per_s
    # Multicast: a and b are each read from DRAM once (8 MiB each).
    assert report.dram_bytes_read == 2 * 2048 * 2048 * 2
