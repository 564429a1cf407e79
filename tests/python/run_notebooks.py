#!/usr/bin/python3
"""Executes the teaching labs (notebooks/*.ipynb) headless, as the test suite does.

Each lab must run clean from top to bottom in a fresh kernel, and must have what a lab
promises: learning goals, at least one plot, and exercises whose answers are checked.
Committed notebooks carry no outputs (so diffs stay readable and nothing computed is
pasted). Usage: run_notebooks.py [--python-dir build/python] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[2]


def structure_problems(nb: nbformat.NotebookNode) -> list[str]:
    problems = []
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    if "learning goals" not in markdown.lower():
        problems.append("no 'Learning goals' section")
    if "exercise" not in markdown.lower() or "check_" not in code:
        problems.append("no exercises with checked answers (check_... calls)")
    if "import loom" not in code:
        problems.append("does not use loom")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            problems.append(f"cell {i} was committed with outputs (clear them)")
    return problems


def has_plot(nb: nbformat.NotebookNode) -> bool:
    return any("image/png" in out.get("data", {}) or "image/svg+xml" in out.get("data", {})
               for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", []))


def errors_in(nb: nbformat.NotebookNode) -> list[str]:
    """Output a clean run should not have: tracebacks and warnings printed to stderr."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
            elif out.get("output_type") == "stream" and out.get("name") == "stderr" and "Warning" in out.get("text", ""):
                found.append(f"cell {i} warned: {out['text'].strip()[:300]}")
    return found


def run(path: Path, python_dir: Path, timeout: int) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    problems = structure_problems(nb)
    env_path = os.pathsep.join([str(python_dir), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    os.environ["PYTHONPATH"] = env_path
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # the kernel's debugger notes on stderr
    with tempfile.TemporaryDirectory(prefix="loom-lab-") as scratch:
        os.environ["LOOM_LAB_SCRATCH"] = scratch
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute()
        except CellExecutionError as e:
            problems.append(f"a cell failed:\n{e}")
            return problems
    problems += errors_in(nb)
    if not has_plot(nb):
        problems.append("produced no plot")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python-dir", type=Path, default=ROOT / "build" / "python",
                        help="directory holding the built loom package (default: build/python)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args()
    if not (args.python_dir / "loom" / "__init__.py").exists():
        print(f"run_notebooks: no built loom package in {args.python_dir} (build first: cmake --build build)")
        return 2
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not paths:
        print("run_notebooks: no notebooks found")
        return 1
    failed = 0
    for path in paths:
        start = time.monotonic()
        problems = run(path.resolve(), args.python_dir.resolve(), args.timeout)
        status = "ok" if not problems else "FAILED"
        print(f"{path.name}: {status} ({time.monotonic() - start:.1f} s)", flush=True)
        for p in problems:
            print(f"  - {p}")
        failed += bool(problems)
    print(f"{len(paths) - failed} of {len(paths)} notebooks ran clean")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
