"""loom from Python: the simulator, the mapper and sweeps, with results as plain dicts.

Every function takes architectures and workloads as a file path, a shipped name
("v100", "resnet50"), a dict in the files' schema, or an object loaded before. Results are
the dicts the CLI writes as JSON (docs/report-schema.md); those with a table behind them
also give a pandas DataFrame. Bad input raises loom.InputError with the CLI's message.
Reference: docs/python.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from . import _loom
from ._loom import Architecture, InputError, Network
from .results import Report, Summary, SweepResult, TrainReport, frame

__all__ = [
    "Architecture", "Network", "InputError", "Report", "Summary", "SweepResult", "TrainReport",
    "load_architecture", "load_workload", "shipped_architectures", "shipped_workloads", "shipped_sweeps",
    "run", "run_layer", "evaluate", "map_layer", "gpu_kernel", "kernels", "validate", "roofs", "area",
    "sweep", "merge", "load_sweep", "train", "shipped_systems", "frame", "SOURCE_DIR", "__version__",
]

__version__: str = _loom.version
SOURCE_DIR = Path(_loom.source_dir)
"""The loom checkout this module was built from: configs/, workloads/, validate/data/."""

_ARCH_DIR = SOURCE_DIR / "configs"
_WORKLOAD_DIR = SOURCE_DIR / "workloads" / "networks"
_SWEEP_DIR = SOURCE_DIR / "configs" / "sweeps"
_SYSTEM_DIR = SOURCE_DIR / "configs" / "systems"


def _names(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.json"))


def shipped_architectures() -> list[str]:
    """Names of the architectures in configs/ (each loads with load_architecture(name))."""
    return _names(_ARCH_DIR)


def shipped_workloads() -> list[str]:
    """Names of the networks in workloads/networks/ (each loads with load_workload(name))."""
    return _names(_WORKLOAD_DIR)


def shipped_sweeps() -> list[str]:
    """Names of the sweep specs in configs/sweeps/ (each runs with sweep(name, ...))."""
    return _names(_SWEEP_DIR)


def shipped_systems() -> list[str]:
    """Names of the multi-device systems in configs/systems/ (each trains with train(name, ...))."""
    return [name for name in _names(_SYSTEM_DIR) if name != "links"]


def _resolve(path: str | os.PathLike, folder: Path) -> str:
    """A bare name without a suffix ("v100") as the shipped file of that name; anything
    else as given, so the C++ loader reports a missing file in the CLI's words. A bare
    name wins over a file of that name in the working directory (files have suffixes)."""
    text = os.fspath(path)
    shipped = folder / (text + ".json")
    if os.sep not in text and not Path(text).suffix and shipped.exists():
        return str(shipped)
    return text


def load_architecture(arch: Any = None) -> Architecture:
    """An Architecture from a path, a shipped name, a dict in the architecture schema
    (docs/arch-schema.md; relative paths in it resolve from the working directory), or an
    Architecture (returned as is). None: the embedded default, a 128x128 WS array."""
    if arch is None:
        return _loom.default_architecture()
    if isinstance(arch, Architecture):
        return arch
    if isinstance(arch, Mapping):
        return _loom.parse_architecture(dict(arch), "<dict>", os.getcwd())
    if isinstance(arch, (str, os.PathLike)):
        return _loom.load_architecture(_resolve(arch, _ARCH_DIR))
    raise TypeError(f"arch: a path, a shipped name, a dict or a loom.Architecture; got {type(arch).__name__}")


def load_workload(workload: Any = None) -> Network:
    """A Network from a path (.json or SCALE-Sim .csv), a shipped name, a dict in the
    network schema (docs/workload-schema.md) or a Network. None: the embedded ResNet-50."""
    if workload is None:
        return _loom.default_workload()
    if isinstance(workload, Network):
        return workload
    if isinstance(workload, Mapping):
        return _loom.parse_network(dict(workload), "<dict>")
    if isinstance(workload, (str, os.PathLike)):
        return _loom.load_workload(_resolve(workload, _WORKLOAD_DIR))
    raise TypeError(f"workload: a path, a shipped name, a dict or a loom.Network; got {type(workload).__name__}")


def _mapper(objective, search, budget, seed, threads, dataflow) -> Any:
    """Mapper options; those given (not None) are named so a systolic or GPU run refuses
    them exactly as `loom run` refuses its mapper flags."""
    given = [f"--{name}" for name, value in
             (("objective", objective), ("search", search), ("budget", budget), ("seed", seed),
              ("dataflow", dataflow)) if value is not None]
    return _loom.mapper_options(objective or "", search or "", budget or 0, 1 if seed is None else seed,
                                threads, dataflow or "", given)


def run(arch: Any = None, workload: Any = None, *, precision: str | None = None, scalesim_compat: bool = False,
        objective: str | None = None, search: str | None = None, budget: int | None = None,
        seed: int | None = None, dataflow: str | None = None, threads: int = 0,
        out: str | os.PathLike | None = None) -> Report:
    """`loom run`: the network on the architecture at its own fidelity (systolic: cycle
    level; hierarchy: every layer mapped, analytic; gpu: the SIMT model). Returns
    report.json's contents; with `out`, also writes the CLI's files there."""
    report = _loom.run(load_architecture(arch), load_workload(workload), precision or "", scalesim_compat,
                       _mapper(objective, search, budget, seed, threads, dataflow),
                       "" if out is None else os.fspath(out))
    return Report(report)


def run_layer(arch: Any, workload: Any, layer: str, **options: Any) -> Report:
    """run() on one layer of a network, by name."""
    return run(arch, load_workload(workload).subset([layer]), **options)


def evaluate(arch: Any = None, workload: Any = None, *, fidelity: str = "analytic", precision: str = "fp16",
             dataflow: str | None = None, seed: int = 1, layers: Sequence[str] | None = None) -> Summary:
    """The network on the architecture at `fidelity` ("analytic": fast models, no SystemC;
    "cycle": the cycle-level models), as report.json's "summary": per-layer and total
    cycles, time, energy by component, bytes per memory level and roofline placement.
    `layers`: only these layers, by name."""
    network = load_workload(workload)
    if layers is not None:
        network = network.subset(list(layers))
    return Summary(_loom.evaluate(load_architecture(arch), network, fidelity, precision, dataflow or "", seed))


def map_layer(arch: Any, layer: str, workload: Any = None, *, mapping: str | os.PathLike | None = None,
              objective: str = "edp", search: str = "auto", budget: int = 0, seed: int = 1, threads: int = 0,
              dataflow: str | None = None) -> dict:
    """`loom map`: search the best mapping of one layer (by name, in `workload`) with the
    analytic cost model, or evaluate a pinned mapping file. Returns map_report.json's
    contents: the problem, the search, the mapping, its loop nest and its cost."""
    options = _loom.mapper_options(objective, search, budget, seed, threads, dataflow or "", [])
    return _loom.map_layer(load_architecture(arch), load_workload(workload), layer,
                           "" if mapping is None else os.fspath(mapping), options)


def gpu_kernel(arch: Any, kernel: str, sizes: Mapping[str, int] | None = None, *, seed: int = 1,
               registers: int = 0, check: bool = True, issue_order: str = "scheduled",
               execute_at_issue: bool = False) -> dict:
    """`loom gpu`: one launch of a shipped kernel (see kernels()) at `sizes` on a GPU config,
    simulated cycle by cycle and checked against the CPU reference. Returns report.json's
    contents (cycles, IPC, FLOP/s, stalls, caches, DRAM, tensor-core use, energy).
    issue_order="written" runs the PTX in its own order instead of each block scheduled
    loads-first (`loom gpu --issue-order`). execute_at_issue=True executes every instruction
    when it issues, never a CTA ahead (`loom gpu --execute-at-issue`; the same results for
    kernels that synchronize properly)."""
    return _loom.gpu_kernel(load_architecture(arch), kernel, dict(sizes or {}), seed, registers, check,
                            issue_order, execute_at_issue)


def kernels() -> list[dict]:
    """The shipped CUDA kernels: name, summary and default sizes."""
    return _loom.kernels()


def validate(arch: Any, measured: str | os.PathLike, *, budget_s: float = 120, kernels: Iterable[str] = (),
             seed: int = 1, allow_device_mismatch: bool = False) -> dict:
    """`loom validate`: every launch a measurement file records (validate/data/), simulated
    on the GPU config and compared. Returns validation.json's contents."""
    path = _resolve(measured, SOURCE_DIR / "validate" / "data")
    return _loom.validate(load_architecture(arch), path, budget_s, list(kernels), seed, allow_device_mismatch)


def roofs(arch: Any) -> dict:
    """The architecture's compute roofs (FLOP/s) and bandwidth roofs (bytes/s per level)."""
    return load_architecture(arch).roofs()


def area(arch: Any) -> dict:
    """First-order silicon area by component, mm^2 (docs/area-model.md)."""
    return load_architecture(arch).area()


def sweep(spec: str | os.PathLike, out: str | os.PathLike = "loom-sweep", *, jobs: int = 1, resume: bool = False,
          shard: str | None = None, client: Any = None, progress: bool = False) -> SweepResult:
    """`loom sweep`: evaluate a sweep spec's points, find the Pareto front, re-simulate it.

    jobs: worker processes forked from this one. client: a dask.distributed Client; the
    points then run on its workers instead (each needs this loom module and the spec's
    files at the same paths). Ctrl-C (or interrupting the kernel) stops it, keeping every
    finished point, and raises KeyboardInterrupt; resume=True continues. progress: print
    the CLI's progress bar on standard error."""
    spec_file = os.path.abspath(_resolve(spec, _SWEEP_DIR))
    out_dir = os.fspath(out)
    executor = None
    if client is not None:
        from .dask_executor import make_executor
        executor = make_executor(client, spec_file, _loom.spec_fingerprint(spec_file))
    outcome = _loom.run_sweep(spec_file, out_dir, jobs, resume, shard or "", not progress, executor)
    return SweepResult(out_dir, outcome)


def merge(shard_dirs: Sequence[str | os.PathLike], out: str | os.PathLike = "loom-sweep",
          spec: str | os.PathLike | None = None) -> SweepResult:
    """`loom merge`: join the result directories of a sharded sweep."""
    out_dir = os.fspath(out)
    outcome = _loom.merge([os.fspath(d) for d in shard_dirs], out_dir, "" if spec is None else os.fspath(spec))
    return SweepResult(out_dir, outcome)


def load_sweep(out_dir: str | os.PathLike) -> SweepResult:
    """The results a finished sweep left in `out_dir`."""
    return SweepResult(os.fspath(out_dir), None)


def train(system: str | os.PathLike | None = None, workload: str | os.PathLike | None = None, *, batch: int,
          arch: str | os.PathLike | None = None, out: str | os.PathLike | None = None, **options: Any) -> TrainReport:
    """`loom train`: samples/s of a training step on a system of devices (docs/training.md).

    `system` is a system file or a shipped system name ("dgx1_v100"); or give `arch` (a file
    or shipped name) for one device. `workload`: a network file or shipped name (None: the
    embedded ResNet-50). Further options are the CLI's in Python spelling: parallel, devices,
    precision, optimizer, fuse, layout, loss_scaling, all_reduce, bucket_mib, overlap,
    micro_batches, launch_overhead, cuda_graphs, loader_rate, fidelity, effects. Returns
    report.json's contents; with `out`, also writes the CLI's files there."""
    request: dict[str, Any] = dict(options)
    request["batch"] = batch
    if system is not None:
        request["system"] = _resolve(system, _SYSTEM_DIR)
    if arch is not None:
        request["arch"] = _resolve(arch, _ARCH_DIR)
    if workload is not None:
        request["workload"] = _resolve(workload, _WORKLOAD_DIR)
    if out is not None:
        request["out"] = os.fspath(out)
    return TrainReport(_loom.train(request))
