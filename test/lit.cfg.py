# lit configuration for ttlang's IR and tool tests (`lit -sv test`).
#
# Tests are the .mlir and .py files under test/, except test/python (pytest) and
# test/emulator (C++ tests run by ctest). Substitutions:
#   %ttlang-opt, %ttlang-translate   the tools of the environment running lit
#   %python                          its Python interpreter
#   FileCheck, filecheck             FileCheck from the `filecheck` PyPI package
import os
import shutil
import sys

import lit.formats

config.name = "ttlang"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "python", "emulator", "Inputs"]

# The console scripts live beside the interpreter of the environment lit runs in
# (.venv/bin when run as `.venv/bin/lit`); fall back to PATH for other set-ups.
tool_dir = os.path.dirname(sys.executable)


def tool(name):
    beside_python = os.path.join(tool_dir, name)
    found = beside_python if os.path.exists(beside_python) else shutil.which(name)
    if found is None:
        lit_config.fatal(f"'{name}' not found; install the project with `pip install -e '.[test]'`")
    return found


config.environment["PATH"] = os.pathsep.join([tool_dir, os.environ.get("PATH", "")])

config.substitutions.append(("%ttlang-opt", tool("ttlang-opt")))
config.substitutions.append(("%ttlang-translate", tool("ttlang-translate")))
config.substitutions.append(("%python", sys.executable))
# LLVM's name for the tool, for tests written as in MLIR projects.
config.substitutions.append((r"\bFileCheck\b", tool("filecheck")))
