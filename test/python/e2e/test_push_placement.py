"""End-to-end test of ttkernel-hoist-cb-pushes on the emulator against torch: the
streaming softmax denominator of test_deferred_row_sum (running max m and sum l carried
across the chunk loop), in 16-bit and 32-bit DST.

Besides the numbers, the test checks the generated compute kernel: every `cb_push_back`
comes in the DST section of the last `pack_tile` into its CB (no `tile_regs_acquire`
between them), so it cannot pass with the pushes where d2m-bufferize puts the
loop-carried ones (m's at the end of the loop body, sections after its packs). Tolerances as test_deferred_row_sum's: max-abs two bf16 ulps of
the largest sum (2.0), PCC 0.9999.
"""

from __future__ import annotations

import re

import pytest
import torch
from e2e_kernels import TILE, assert_close, random_bf16
from test_deferred_row_sum import CHUNKS, COLS, MIN_PCC, ROWS, _reference, running_row_sum


def _assert_pushed_after_own_packs(source: str) -> None:
    lines = source.splitlines()
    for at, line in enumerate(lines):
        push = re.search(r"cb_push_back\((\w+),", line)
        if not push:
            continue
        own = rf"pack_tile(<\w+>)?\(\w+, {push.group(1)},"
        packs = [n for n in range(at) if re.search(own, lines[n])]
        assert packs, f"{line.strip()} without a pack before it:\n{source}"
        between = "\n".join(lines[packs[-1] : at])
        assert "tile_regs_acquire" not in between, f"{line.strip()} a section later:\n{between}"


@pytest.mark.parametrize("fp32_dest", [False, True], ids=["dst16", "dst32"])
def test_carried_blocks_pushed_after_their_packs(fp32_dest: bool):
    rows = torch.arange(ROWS * TILE, dtype=torch.float32)
    spread = (rows % 8 + 1).div(2).unsqueeze(1)  # rows scaled by 0.5 to 4: sums far apart
    x = (random_bf16((ROWS * TILE, CHUNKS * COLS * TILE), -1.0, 1.0, seed=71) * spread).bfloat16()
    out = torch.zeros(ROWS * TILE, TILE, dtype=torch.bfloat16)
    artifact = running_row_sum(True, fp32_dest).compile(x, out)
    source = next(k.source for k in artifact.program.kernels if k.kind == "compute")
    _assert_pushed_after_own_packs(source)
    artifact.run([x, out])
    assert_close(out[:, 0].float(), _reference(x, True), max_abs=2.0, min_pcc=MIN_PCC)
