"""Sweep points on a Dask cluster: `loom.sweep(spec, client=client)`.

The sweep itself (planning, NSGA-II generations, the streamed and resumable points.jsonl,
the front) stays in this process; each point is one Dask task, evaluate_request(), that
runs on a worker. Workers import this module, so they need loom on their PYTHONPATH and
the spec's files at the same paths (a shared file system, as with Slurm shards)."""

from __future__ import annotations

import time
from typing import Any, Callable


def evaluate_request(spec_file: str, fingerprint: str, request: str) -> str:
    """Runs on a worker: one point, as its points.jsonl line. The worker keeps the loaded
    spec between points."""
    from loom import _loom
    return _loom.evaluate_point_request(spec_file, fingerprint, request)


def make_executor(client: Any, spec_file: str, fingerprint: str) -> Callable[..., bool]:
    """The executor run_sweep calls for each batch of points (the contract of the C++
    WorkerPool::run): submit them all, report each as it finishes, stop on request."""
    from distributed import as_completed

    def execute(requests: list[str], on_reply: Callable[[int, str, bool], None],
                stopped: Callable[[], bool], tick: Callable[[], None]) -> bool:
        futures = [client.submit(evaluate_request, spec_file, fingerprint, r, pure=False) for r in requests]
        position = {f.key: i for i, f in enumerate(futures)}
        pending = as_completed(futures)
        while not pending.is_empty():
            if stopped():
                client.cancel(futures)
                return False
            batch = pending.next_batch(block=False)
            if not batch:
                time.sleep(0.05)
                tick()
                continue
            for future in batch:
                if future.status == "finished":
                    on_reply(position[future.key], future.result(), True)
                else:
                    error = future.exception()
                    on_reply(position[future.key], f"{type(error).__name__}: {error}", False)
            tick()
        return True

    return execute
