#!/usr/bin/python3
"""Python-module benchmark: what the bindings cost over the C++ they call, and what a Dask
cluster costs over forked workers, measured as ratios in one run.

1. loom.evaluate (analytic ResNet-50 on the 32x32 array), per call, against the same work
   in `loom_bench`-free terms: one `loom roofline` CLI process evaluating it (which pays
   process start-up; the per-call figure is the one to read).
2. The 1,000-point sweep (configs/sweeps/systolic_resnet50_1000.json, analytic, front not
   re-simulated) with jobs=1, jobs=2 and a 2-worker Dask LocalCluster: points per second.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_sweep.py   (or bash bench/run python)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import loom

ROOT = Path(__file__).resolve().parents[1]


def per_call(fn, repeats: int) -> float:
    fn()  # warm: files loaded, engines built
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats


def main() -> int:
    arch = loom.load_architecture("systolic_32x32_ws")
    net = loom.load_workload("resnet50")
    t_loaded = per_call(lambda: loom.evaluate(arch, net), 50)
    t_by_name = per_call(lambda: loom.evaluate("systolic_32x32_ws", "resnet50"), 20)
    cli = str(ROOT / "build" / "loom")
    t_cli = per_call(lambda: subprocess.run([cli, "roofline", "--arch", "configs/systolic_32x32_ws.json",
                                             "--workload", "workloads/networks/resnet50.json"],
                                            cwd=ROOT, check=True, capture_output=True), 5)
    print("loom.evaluate, analytic ResNet-50 on systolic_32x32_ws")
    print(f"  loaded objects      {t_loaded * 1e3:8.2f} ms/call")
    print(f"  by name (loads too) {t_by_name * 1e3:8.2f} ms/call")
    print(f"  loom roofline (CLI process) {t_cli * 1e3:8.2f} ms/run  ({t_cli / t_loaded:.1f}x the loaded call)")

    with tempfile.TemporaryDirectory() as d:
        spec = json.loads((ROOT / "configs/sweeps/systolic_resnet50_1000.json").read_text())
        spec["base"] = str(ROOT / "configs/systolic_32x32_ws.json")
        spec["workloads"] = [str(ROOT / "workloads/networks/resnet50.json")]
        spec["fidelity"] = {"search": "analytic", "pareto": "none"}
        spec_file = Path(d) / "spec.json"
        spec_file.write_text(json.dumps(spec))
        rates = {}
        for name, kwargs in (("jobs=1", {"jobs": 1}), ("jobs=2", {"jobs": 2})):
            start = time.perf_counter()
            result = loom.sweep(spec_file, Path(d) / name, **kwargs)
            rates[name] = len(result.points) / (time.perf_counter() - start)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        from distributed import Client, LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            start = time.perf_counter()
            result = loom.sweep(spec_file, Path(d) / "dask", client=client)
            rates["dask 2 workers"] = len(result.points) / (time.perf_counter() - start)
        same = (Path(d) / "jobs=1" / "points.jsonl").read_bytes() == (Path(d) / "dask" / "points.jsonl").read_bytes()
    print(f"sweep of {len(result.points)} analytic points (ResNet-50), points/s")
    for name, rate in rates.items():
        print(f"  {name:16s} {rate:8.0f}  ({rate / rates['jobs=1']:.2f}x jobs=1)")
    print(f"  Dask points.jsonl identical to jobs=1: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
