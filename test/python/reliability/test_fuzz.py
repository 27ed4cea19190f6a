"""The differential fuzzer (ttlang.tools.fuzz): a fixed-seed smoke run, and proof that it
can fail (a reference off by 5% is caught, with the seed and a standalone repro)."""

import subprocess
import sys

import pytest

from ttlang.tools import fuzz

# Findings not fixed yet, each reported to the owner of the failing pass; they run in
# test_known_failures, which starts failing (strict xfail) once they are fixed.
KNOWN_FAILURES = {
    # (maximum(a0, -0.5) - (3.0 - a0)) * (a0 - a2.colmax().rowmax()) and the like:
    # convert-d2m-to-ttkernel "needs its operand in DST" (a KernelError, not a CompilerBug)
    20: "convert-d2m-to-ttkernel: operand not in DST",
    32: "convert-d2m-to-ttkernel: operand not in DST",
}
SMOKE_SEEDS = [s for s in range(0, 60) if s not in KNOWN_FAILURES]  # ~1 s each


@pytest.mark.xfail(strict=True, reason="known fuzzer findings, see KNOWN_FAILURES")
@pytest.mark.parametrize("seed", sorted(KNOWN_FAILURES))
def test_known_failures(seed, tmp_path):
    ran, failed = fuzz.fuzz([seed], tmp_path / "work", tmp_path / "failures", log=lambda _: None)
    assert failed == []


def test_fixed_seed_smoke_run(tmp_path):
    reports = []
    ran, failed = fuzz.fuzz(SMOKE_SEEDS, tmp_path / "work", tmp_path / "failures", log=reports.append)
    assert ran == len(SMOKE_SEEDS)
    assert failed == [], "\n".join(reports)


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
