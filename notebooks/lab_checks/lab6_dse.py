"""Checks for lab 6, design-space exploration (notebooks/06_design_space_exploration.ipynb).

Every expected answer is computed with loom when asked, never typed in: the checks run the
lab's sweep (configs/sweeps/systolic_area_budget.json, under a second in all) once into a
temporary directory and cache it (lru_cache), so they follow the shipped spec, configs and
models."""

from __future__ import annotations

import functools
import os
import tempfile

import loom

from .common import verdict

SPEC = "systolic_area_budget"  # configs/sweeps/systolic_area_budget.json


@functools.lru_cache(maxsize=None)
def sweep_result() -> loom.SweepResult:
    """The lab's sweep, run once into a new temporary directory."""
    out = os.path.join(tempfile.mkdtemp(prefix="loom-lab6-check-"), "sweep")
    return loom.sweep(SPEC, out, jobs=1)


def area_budget(result: loom.SweepResult | None = None) -> float:
    """The spec's area limit (mm^2), from the sweep's manifest."""
    result = result or sweep_result()
    return next(c["max"] for c in result.manifest["constraints"] if c["metric"] == "area_mm2")


def design(point: dict) -> list:
    """[rows, cols, dataflow] of a sweep point."""
    params = point["params"]
    return [params["array.rows"], params["array.cols"], params["array.dataflow"]]


# Exercise 1: the fastest design (lowest latency_s) with at most 2 mm^2, as [rows, cols, dataflow].
EXERCISE_1_BUDGET_MM2 = 2.0


def solution_1() -> list:
    return design(sweep_result().best("latency_s", area_mm2=EXERCISE_1_BUDGET_MM2))


def check_1(answer) -> bool:
    return verdict(answer, solution_1(), rel=0,
                   hint="use best() with a tighter area limit, then read the point's params; "
                        "answer [rows, cols, dataflow], e.g. [64, 32, \"ws\"]")


# Exercise 2: how many times slower the fastest weight-stationary design within the area budget
# is than the fastest design of any dataflow within it (ratio of latency_s).
def fastest(dataflow: str | None = None) -> dict:
    """The lowest-latency feasible point (within the spec's budget), of one dataflow or of all."""
    points = [p for p in sweep_result().feasible()
              if dataflow is None or p["params"]["array.dataflow"] == dataflow]
    return min(points, key=lambda p: (p["metrics"]["latency_s"], p["index"]))


def solution_2() -> float:
    return fastest("ws")["metrics"]["latency_s"] / fastest()["metrics"]["latency_s"]


def check_2(answer) -> bool:
    return verdict(answer, solution_2(), rel=0.01,
                   hint="filter the feasible points on params.array.dataflow == 'ws', take the lowest "
                        "latency, and divide by the latency of the design best() chose (a ratio > 1)")


# Exercise 3: the smallest area (mm^2) of a feasible design whose latency is at most 10% above
# the fastest design's within the budget.
EXERCISE_3_SLACK = 0.10


def solution_3() -> float:
    limit = (1 + EXERCISE_3_SLACK) * fastest()["metrics"]["latency_s"]
    return min(p["metrics"]["area_mm2"] for p in sweep_result().feasible() if p["metrics"]["latency_s"] <= limit)


def check_3(answer) -> bool:
    return verdict(answer, solution_3(), rel=0.005,
                   hint="best() can minimise area_mm2 under a latency_s limit; the limit is 1.1 x the "
                        "chosen design's latency")
