"""Result types: the JSON the CLI writes, as dicts, with DataFrame views.

pandas is optional: the dicts work without it; frame() and the *_frame() methods need it
(Debian: python3-pandas)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence


def frame(records: Sequence[dict]) -> Any:
    """A pandas DataFrame of dicts, nested keys flattened to dotted columns
    ("energy_pj.dram", "metrics.latency_s")."""
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - pandas is installed by scripts/install-deps
        raise ImportError("loom's DataFrames need pandas (Debian: apt install python3-pandas); "
                          "the results are also plain dicts and lists") from e
    return pandas.json_normalize(list(records))


class Summary(dict):
    """report.json's "summary" (docs/report-schema.md, "Summary"): every architecture
    kind's network evaluation in one shape."""

    @property
    def layers(self) -> list[dict]:
        return self["layers"]

    @property
    def totals(self) -> dict:
        return self["totals"]

    def layers_frame(self) -> Any:
        """One row per layer: cycles, seconds, utilization, energy_pj.*, bytes.*, roofline.*."""
        return frame(self["layers"])


class Report(dict):
    """The report.json a `loom run` writes: the model's own detail, plus its "summary"."""

    @property
    def summary(self) -> Summary:
        return Summary(self["summary"])

    def layers_frame(self) -> Any:
        return self.summary.layers_frame()


class TrainReport(dict):
    """The report.json a `loom train` writes (docs/training.md, "Report"), with tables."""

    def kernels_frame(self) -> Any:
        """Device 0's kernels: name, layer, op, phase, kind, seconds, flops, dram_bytes, ..."""
        return frame(self["kernels"])

    def timeline_frame(self) -> Any:
        """Every timeline bar: device, lane, name, phase, start_seconds, end_seconds."""
        return frame(self["timeline"])

    def memory_frame(self) -> Any:
        """Per device: each part of the footprint in bytes, the capacity and whether it fits."""
        return frame(self["memory"])

    def effects_frame(self) -> Any:
        """What each switch costs: the step as estimated and with the switch flipped."""
        return frame(self["effects"])


def _read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _read_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class SweepResult:
    """What a sweep left in its directory (docs/sweeps.md, "Results"): the manifest
    (sweep.json), every point (points.jsonl) and the Pareto front (pareto.json)."""

    def __init__(self, out_dir: str, outcome: dict | None):
        self.dir = Path(out_dir)
        self.outcome = outcome
        self.manifest: dict = _read_json(self.dir / "sweep.json")
        self.points: list[dict] = _read_lines(self.dir / "points.jsonl")
        pareto = self.dir / "pareto.json"
        self.front: list[dict] = _read_json(pareto)["front"] if pareto.exists() else []

    @property
    def objectives(self) -> list[str]:
        """The metrics the front minimises or maximises, e.g. ["latency_s", "area_mm2"]."""
        return [o["metric"] for o in self.manifest["objectives"]]

    def feasible(self) -> list[dict]:
        return [p for p in self.points if p["feasible"]]

    def points_frame(self) -> Any:
        return frame(self.points)

    def front_frame(self) -> Any:
        return frame(self.front)

    def best(self, metric: str, **limits: float) -> dict | None:
        """The feasible point with the smallest `metric`, among those whose metrics stay
        under every `limit` (e.g. best("latency_s", area_mm2=6)); None when none does."""
        ok = [p for p in self.feasible()
              if all(p["metrics"][name] <= limit for name, limit in limits.items())]
        return min(ok, key=lambda p: (p["metrics"][metric], p["index"]), default=None)

    def __repr__(self) -> str:
        return (f"<loom.SweepResult {self.dir}: {len(self.points)} points, "
                f"{len(self.feasible())} feasible, front of {len(self.front)}>")
