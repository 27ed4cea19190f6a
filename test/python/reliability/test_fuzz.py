"""The differential fuzzer (ttlang.tools.fuzz): a fixed-seed smoke run, cases that read
block views, cases with trils (caught when the reference's diagonal or the compiler's
skipped tiles are off by one), cases whose carry runs under a run-time `if` (caught
when the reference takes the other branch), and proof that it can fail (a reference
off by 5% is caught, with the seed and a standalone repro)."""

import subprocess
import sys

from ttlang.dialects import d2m
from ttlang.tools import fuzz
from ttlang.transforms import d2m_skip_masked_tiles

SMOKE_SEEDS = list(range(0, 60))  # ~1 s each; 20 and 32 were d2m-dst-allocate findings


def test_fixed_seed_smoke_run(tmp_path):
    reports = []
    ran, failed = fuzz.fuzz(SMOKE_SEEDS, tmp_path / "work", tmp_path / "failures", log=reports.append)
    assert ran == len(SMOKE_SEEDS)
    assert failed == [], "\n".join(reports)


def test_cases_with_block_views_render_views_and_pass(tmp_path):
    """Seed 60: `a0[1:3].transpose() @ a0[1:3].transpose()` (a view as transposed A and
    B); seed 1190: `maximum(a0[3:5], a0[1:3]) @ ...` (views in an elementwise op, as
    matmul A). Both view rows other than the block's first: reading the block from tile
    row 0 would not match the reference."""
    seeds = [60, 1190]
    for seed in seeds:
        case = fuzz.draw_case(seed)
        assert case.extra_rows[0] >= 1
        starts = [int(view.split("[")[1].split(":")[0]) for view in case.dsl_expression.split("a0")[1:]]
        assert starts and min(starts) >= 1, case.dsl_expression
        assert f"a0[{starts[0]}:" in fuzz.kernel_module(case)
    reports = []
    ran, failed = fuzz.fuzz(seeds, tmp_path / "work", tmp_path / "failures", log=reports.append)
    assert (ran, failed) == (len(seeds), []), "\n".join(reports)


TRIL_SEEDS = {
    # a softmax-like chain of a -inf tril on the main diagonal, normalized by its row sums
    91: "s = tril(a1[0:1], diagonal=0, value=-math.inf); ((s - s.rowmax()).exp() / ",
    # a 0-masked matmul A below the diagonal (diagonal -32: the first tile row masked whole)
    193: "(tril(a0[0:2], diagonal=-32, value=0.0) @ a0[0:2])",
}


def test_cases_with_trils_pass_and_a_wrong_diagonal_fails(tmp_path, monkeypatch):
    """Seed 91: `(s - s.rowmax()).exp() / (...).rowsum()` of `s = tril(a1[0:1], 0,
    -inf)` (rowmax over -inf tiles, rowsum over 0 tiles); seed 193: a 0-masked matmul A.
    Both pass against torch.tril. Both fail with the reference's diagonal a tile
    higher, and with d2m-skip-masked-tiles skipping one tile diagonal too many."""
    seeds = list(TRIL_SEEDS)
    for seed, text in TRIL_SEEDS.items():
        case = fuzz.draw_case(seed)
        assert text in case.source, case.source
        assert "tril, " in fuzz.kernel_module(case)
    reports = []
    ran, failed = fuzz.fuzz(seeds, tmp_path / "work", tmp_path / "failures", log=reports.append)
    assert (ran, failed) == (len(seeds), []), "\n".join(reports)

    with monkeypatch.context() as patch:
        exact = fuzz.tril_kept
        patch.setattr(fuzz, "tril_kept", lambda shape, diagonal: exact(shape, diagonal + 32))
        ran, failed = fuzz.fuzz(seeds, tmp_path / "work", tmp_path / "wrong", log=reports.append)
        assert (ran, failed) == (len(seeds), seeds), "\n".join(reports)

    add = d2m_skip_masked_tiles.add_triangle

    def one_diagonal_more(generic, triangle):
        add(generic, d2m.TriangleAttr(triangle.rows.data, triangle.cols.data, triangle.diagonal.data - 1))

    monkeypatch.setattr(d2m_skip_masked_tiles, "add_triangle", one_diagonal_more)
    ran, failed = fuzz.fuzz(seeds, tmp_path / "work", tmp_path / "miscompiled", log=reports.append)
    assert (ran, failed) == (len(seeds), seeds), "\n".join(reports)


BRANCH_SEEDS = {
    # (condition, else): the carry's update under `if`, and what runs otherwise
    0: ("below", "none"),  # acc + value when k < core_index(0) % 2 + 1, on 2x1 cores
    9: ("below", "half"),  # else acc * 0.5: both branches compute the block
    326: ("parity", "value"),  # else acc = value: a block defined before the `if`
}


def test_cases_with_runtime_branches_pass_and_the_other_branch_fails(tmp_path, monkeypatch):
    """Seeds 0, 9 and 326 run their carry's update under a run-time `if`, with no
    `else`, one that halves the carry and one that sets it to the block's value
    (d2m-if-to-loops makes each branch a loop of 0 or 1 trips). They pass; with the
    reference taking the other branch, each fails."""
    seeds = list(BRANCH_SEEDS)
    for seed, branch in BRANCH_SEEDS.items():
        case = fuzz.draw_case(seed)
        assert (case.mode, case.branch) == ("carry", branch)
        module = fuzz.kernel_module(case)
        assert f"if {fuzz.BRANCH_SOURCE[branch[0]]}:" in module
        assert ("else:" in module) == (branch[1] != "none")
    reports = []
    ran, failed = fuzz.fuzz(seeds, tmp_path / "work", tmp_path / "failures", log=reports.append)
    assert (ran, failed) == (len(seeds), []), "\n".join(reports)

    taken = fuzz.branch_taken
    monkeypatch.setattr(fuzz, "branch_taken", lambda *args: not taken(*args))
    ran, failed = fuzz.fuzz(seeds, tmp_path / "work", tmp_path / "wrong", log=reports.append)
    assert (ran, failed) == (len(seeds), seeds), "\n".join(reports)


def test_a_wrong_result_is_caught_with_its_seed_and_a_repro(tmp_path, monkeypatch):
    exact = fuzz.reference

    def off_by_five_percent(*args):
        value, bound = exact(*args)
        return value * 1.05 + 0.01, bound

    monkeypatch.setattr(fuzz, "reference", off_by_five_percent)
    reports = []
    ran, failed = fuzz.fuzz([7], tmp_path / "work", tmp_path / "failures", log=reports.append)
    assert (ran, failed) == (1, [7])
    assert reports[0].startswith("FAIL seed 7: ttlang.tools.fuzz.Mismatch")
    repro = tmp_path / "failures" / "case_7.py"
    assert f"python {repro}" in reports[0]
    # the repro runs on its own (and passes: the kernel is right, the reference was not)
    result = subprocess.run([sys.executable, str(repro)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "fuzz case 7: matches torch" in result.stdout
