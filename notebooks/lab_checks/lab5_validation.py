"""Checks for lab 5, measured vs simulated (notebooks/05_measured_vs_simulated.ipynb).

Every expected answer is computed with loom (loom.validate on the committed measurement
files in validate/data/) when asked, never typed in. Validations are cached (lru_cache)."""

from __future__ import annotations

import functools
import json

import loom

from .common import verdict

DATA_DIR = loom.SOURCE_DIR / "validate" / "data"


def measurement_file(name: str) -> dict:
    """A committed measurement file, e.g. "v100-published", as read by json."""
    with open(DATA_DIR / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def validation(arch: str, measured: str | None = None) -> dict:
    """loom.validate of a GPU config against a committed file (default <arch>-published)."""
    return loom.validate(arch, measured or f"{arch}-published", budget_s=5)


def microbenchmark(report: dict, name: str) -> dict:
    return next(m for m in report["microbenchmarks"] if m["name"] == name)


# Exercise 1: the mean absolute percentage error (%) of the V100's latency microbenchmarks
# (unit "cycles") against the published figures.
def solution_1() -> float:
    errors = [abs(m["error"]) for m in validation("v100")["microbenchmarks"]
              if m["unit"] == "cycles" and m["error"] is not None]
    return 100 * sum(errors) / len(errors)


def check_1(answer) -> bool:
    return verdict(answer, solution_1(), rel=0.05,
                   hint="average |error| over the microbenchmarks whose unit is 'cycles', times 100")


# Exercise 2: the V100's l2_bandwidth in bytes per SM clock, each side at its own clock (the
# measured device's sm_clock_mhz, the config's clock_hz): loom's signed error in percent.
def solution_2() -> float:
    probe = microbenchmark(validation("v100"), "l2_bandwidth")
    device_hz = measurement_file("v100-published")["device"]["sm_clock_mhz"] * 1e6
    config_hz = loom.load_architecture("v100").to_dict()["clock_hz"]
    per_clock_loom = probe["simulated"] * 1e9 / config_hz
    per_clock_published = probe["measured"] * 1e9 / device_hz
    return 100 * (per_clock_loom / per_clock_published - 1)


def check_2(answer) -> bool:
    return verdict(answer, solution_2(), rel=0.05,
                   hint="convert both GB/s figures to bytes per cycle (published at the file's sm_clock_mhz, "
                        "loom at the config's clock_hz), then (loom - published) / published x 100")


# Exercise 3: the V100 config's dram.latency (cycles) that makes the dram_latency probe read
# the published figure: the probe is linear in the field with slope 1, so one step of
# (published - simulated) lands it. The field is a whole number of cycles.
def solution_3() -> int:
    probe = microbenchmark(validation("v100"), "dram_latency")
    configured = loom.load_architecture("v100").to_dict()["dram"]["latency"]
    return round(configured + (probe["measured"] - probe["simulated"]))


def check_3(answer) -> bool:
    return verdict(answer, solution_3(), rel=0.01,
                   hint="start from the config's dram.latency and add (published - simulated) of the "
                        "dram_latency probe")
