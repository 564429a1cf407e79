"""Sweep points on a Dask cluster: `loom.sweep(spec, client=client)`.

The sweep itself (planning, NSGA-II generations, the streamed and resumable points.jsonl,
the front) stays in this process; the points run on the workers as Dask tasks of a few
points each (evaluate_requests()). Workers import this module, so they need loom on their PYTHONPATH and
the spec's files at the same paths (a shared file system, as with Slurm shards)."""

from __future__ import annotations

import time
from typing import Any, Callable


def evaluate_requests(spec_file: str, fingerprint: str, requests: list[str]) -> list[str]:
    """Runs on a worker: a few points, each as its points.jsonl line. The worker keeps the
    loaded spec between points."""
    from loom import _loom
    return [_loom.evaluate_point_request(spec_file, fingerprint, r) for r in requests]


def chunk_size(points: int, workers: int) -> int:
    """Points per Dask task: analytic points take about a millisecond, less than a task's
    scheduling overhead, so tasks carry several; still at least eight tasks per worker so
    the load balances and progress moves, and at most 64 points lost per failed task."""
    return max(1, min(64, points // (8 * max(1, workers))))


def make_executor(client: Any, spec_file: str, fingerprint: str) -> Callable[..., bool]:
    """The executor run_sweep calls for each batch of points (the contract of the C++
    WorkerPool::run): submit them all, report each as it finishes, stop on request."""
    from distributed import as_completed

    def execute(requests: list[str], on_reply: Callable[[int, str, bool], None],
                stopped: Callable[[], bool], tick: Callable[[], None]) -> bool:
        size = chunk_size(len(requests), len(client.scheduler_info().get("workers", {})))
        starts = range(0, len(requests), size)
        futures = [client.submit(evaluate_requests, spec_file, fingerprint, requests[s:s + size], pure=False)
                   for s in starts]
        first = {f.key: s for f, s in zip(futures, starts)}
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
                start = first[future.key]
                if future.status == "finished":
                    for offset, reply in enumerate(future.result()):
                        on_reply(start + offset, reply, True)
                else:
                    error = future.exception()
                    for position in range(start, min(start + size, len(requests))):
                        on_reply(position, f"{type(error).__name__}: {error}", False)
            tick()
        return True

    return execute
