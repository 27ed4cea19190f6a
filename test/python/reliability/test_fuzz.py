"""The differential fuzzer (ttlang.tools.fuzz): a fixed-seed smoke run, and proof that it
can fail (a reference off by 5% is caught, with the seed and a standalone repro)."""

import subprocess
import sys

from ttlang.tools import fuzz

SMOKE_SEEDS = list(range(0, 60))  # ~1 s each; 20 and 32 were d2m-dst-allocate findings


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
