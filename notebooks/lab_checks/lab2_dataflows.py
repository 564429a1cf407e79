"""Checks for lab 2, systolic dataflows (notebooks/02_systolic_dataflows.ipynb).

Every expected answer is computed with loom when asked, never typed in, so the checks
follow the shipped configs, networks and fold conventions (docs/systolic-conventions.md).
The simulations are cached (lru_cache)."""

from __future__ import annotations

import functools
import json

import loom

from .common import verdict

DATAFLOWS = ("ws", "is", "os")


def shipped_layer(network: str, layer: str) -> dict:
    """One layer of a shipped network (workloads/networks/<network>.json), as it is written
    in the file, renamed "<network>/<layer>" so layers of several networks can share one
    network."""
    with open(loom.SOURCE_DIR / "workloads" / "networks" / f"{network}.json", encoding="utf-8") as f:
        layers = json.load(f)["layers"]
    found = next(item for item in layers if item["name"] == layer)
    return dict(found, name=f"{network}/{layer}")


def network(layers: list[dict], batch: int = 1, name: str = "lab 2 layers") -> dict:
    """A network dict (docs/workload-schema.md) of the given layers at `batch`."""
    return {"schema": "loom-network/1", "name": name, "batch": batch, "layers": list(layers)}


def arch(base: str, dataflow: str | None = None, **sram_kib: float) -> dict:
    """A shipped systolic config as a dict, with its dataflow and buffer sizes (KiB) changed."""
    cfg = loom.load_architecture(base).to_dict()
    if dataflow is not None:
        cfg["array"]["dataflow"] = dataflow
        cfg["name"] = f"{base} ({dataflow})"
    for key, kib in sram_kib.items():
        cfg["sram"][key] = kib
    return cfg


@functools.lru_cache(maxsize=None)
def layer_record(base: str, dataflow: str, net: str, layer: str, batch: int = 1) -> dict:
    """report.json's record of one shipped layer, run alone at cycle level (loom.run)."""
    return loom.run(arch(base, dataflow), network([shipped_layer(net, layer)], batch))["layers"][0]


# Exercise 1: the number of folds ResNet-50's layer4.1.conv2 (GEMM view M = 49, N = 512,
# K = 4608) needs on the 32x32 array, under ws, is and os.
EXERCISE_1_LAYER = ("resnet50", "layer4.1.conv2")


def solution_1() -> list[int]:
    return [layer_record(f"systolic_32x32_{df}", df, *EXERCISE_1_LAYER)["folds"] for df in DATAFLOWS]


def check_1(answer) -> bool:
    return verdict(answer, solution_1(), rel=0,
                   hint="per dataflow, look up which GEMM dimensions map to array rows and columns; "
                        "folds = ceil(dim on rows / 32) x ceil(dim on cols / 32); give [ws, is, os]")


# Exercise 2: the stall-free compute cycles (cycles.compute) of AlexNet's fc6 at batch 1 under
# ws on the 32x32 array.
EXERCISE_2_LAYER = ("alexnet", "fc6")


def solution_2() -> int:
    return layer_record("systolic_32x32_ws", "ws", *EXERCISE_2_LAYER)["cycles"]["compute"]


def check_2(answer) -> bool:
    return verdict(answer, solution_2(), rel=0.001,
                   hint="every fold is full here (K and N are multiples of 32), so each costs "
                        "r + T + R + c - 2 cycles with T = M = 1; multiply by the number of folds")


# Exercise 3: how many times its output size AlexNet's conv1 writes to DRAM under ws on the
# 32x32 array with 64 KiB buffers (DRAM write bytes / output bytes).
EXERCISE_3_LAYER = ("alexnet", "conv1")


def solution_3() -> float:
    record = layer_record("systolic_32x32_ws", "ws", *EXERCISE_3_LAYER)
    elements = loom.load_workload(network([shipped_layer(*EXERCISE_3_LAYER)])).layers()[0]["elements"]["ofmap"]
    output_bytes = elements * loom.load_architecture("systolic_32x32_ws").to_dict()["word_bits"]["ofmap"] / 8
    return record["dram"]["write_bytes"] / output_bytes


def check_3(answer) -> bool:
    return verdict(answer, solution_3(), rel=0.01,
                   hint="the partial sums of every K fold but the last are spilled and read back; "
                        "how many K folds does K = 363 need on 32 rows?")


# Exercise 4: the largest batch (1 to 64) at which BERT-base's ffn_intermediate GEMM keeps its
# partial sums on chip under ws on tpu_v1_like (DRAM writes are only the final outputs).
EXERCISE_4_LAYER = ("bert_base_seq128", "ffn_intermediate")
EXERCISE_4_BATCHES = range(1, 65)


def spills_partial_sums(batch: int) -> bool:
    """Whether ws on tpu_v1_like writes more than the final outputs of ffn_intermediate to DRAM."""
    record = layer_record("tpu_v1_like", "ws", *EXERCISE_4_LAYER, batch=batch)
    gemm = record["gemm"]
    ofmap_bytes = loom.load_architecture("tpu_v1_like").to_dict()["word_bits"]["ofmap"] // 8
    return record["dram"]["write_bytes"] > gemm["m"] * gemm["n"] * gemm["groups"] * ofmap_bytes


def solution_4() -> int:
    return max(b for b in EXERCISE_4_BATCHES if not spills_partial_sums(b))


def check_4(answer) -> bool:
    return verdict(answer, solution_4(), rel=0,
                   hint="the M x 256 partial-sum tile (32-bit words) must fit one half of the "
                        "double-buffered ofmap buffer; M = 128 x batch")
