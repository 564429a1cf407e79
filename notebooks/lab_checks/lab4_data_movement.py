"""Checks for lab 4, data movement and energy (notebooks/04_data_movement_energy.ipynb).

Every expected answer is computed with loom, or from the energy table loom itself prices
with, when asked; nothing is typed in."""

from __future__ import annotations

import json
from pathlib import Path

import loom

from .common import verdict

FP32_BYTES = 4
GIB = 2**30


def energy_table(arch) -> dict:
    """The energy table (configs/energy/*.json) a systolic or hierarchy architecture is
    priced with, as loom resolved its path."""
    ref = loom.load_architecture(arch).to_dict()["energy_table"]
    path = ref["file"] if isinstance(ref, dict) else ref
    with open(Path(path), encoding="utf-8") as f:
        return json.load(f)


def parameters(network) -> int:
    """Weights (filter elements) plus one bias per output channel or feature."""
    total = 0
    for layer in loom.load_workload(network).layers():
        biases = layer["conv"]["out_channels"] if "conv" in layer else \
            layer["gemm_view"]["n"] * layer["gemm_view"]["groups"]
        total += layer["elements"]["filter"] + biases
    return total


def kept_activations(network) -> int:
    """Activation elements kept for the backward pass, at the network's batch: every layer's
    input and output, counting once a tensor that is both one layer's output and the next
    layer's input (same element count: nothing between them changes its size)."""
    total, previous_output = 0, None
    for layer in loom.load_workload(network).layers():
        if layer["elements"]["ifmap"] != previous_output:
            total += layer["elements"]["ifmap"]
        total += layer["elements"]["ofmap"]
        previous_output = layer["elements"]["ofmap"]
    return total


def with_batch(network: str, batch: int) -> dict:
    """A shipped network's file as a dict, at another batch size."""
    with open(loom.SOURCE_DIR / "workloads" / "networks" / f"{network}.json", encoding="utf-8") as f:
        spec = json.load(f)
    spec["batch"] = batch
    return spec


def training_bytes(network, batch: int = 128, bytes_per_value: int = FP32_BYTES) -> int:
    """SGD with momentum: weights + gradients + momentum (3 values per parameter) plus the
    kept activations at `batch`."""
    spec = with_batch(network, batch) if isinstance(network, str) else dict(network, batch=batch)
    return bytes_per_value * (3 * parameters(spec) + kept_activations(spec))


# Exercise 1: on systolic_32x32_ws, how many MACs cost as much as one 64-bit DRAM access?
def solution_1() -> float:
    arch = loom.load_architecture("systolic_32x32_ws").to_dict()
    table = energy_table("systolic_32x32_ws")
    mac_pj = table["mac_pj"][arch["data_type"]]["pj"]
    dram_pj = 64 * table["dram_pj_per_bit"][arch["dram"]["technology"]]["pj"]
    return dram_pj / mac_pj


def check_1(answer) -> bool:
    return verdict(answer, solution_1(), rel=0.02,
                   hint="64 bits x the DRAM technology's pJ/bit, over the MAC energy of the array's data_type")


# Exercise 2: the fraction of AlexNet's total energy on eyeriss_12x14 spent on DRAM.
def solution_2() -> float:
    totals = loom.evaluate("eyeriss_12x14", "alexnet")["totals"]["energy_pj"]
    return totals["dram"] / totals["total"]


def check_2(answer) -> bool:
    return verdict(answer, solution_2(), rel=0.02,
                   hint="totals.energy_pj['dram'] / totals.energy_pj['total'], as a fraction (0 to 1)")


# Exercise 3: AlexNet's parameter count (loom's alexnet: weights + biases).
def solution_3() -> int:
    return parameters("alexnet")


def check_3(answer) -> bool:
    return verdict(answer, solution_3(), rel=0.001,
                   hint="sum the 'filter' elements of every layer, plus one bias per output channel "
                        "(conv out_channels) or output feature (gemm n)")


# Exercise 4: AlexNet's training memory at batch 128 in FP32, GiB.
def solution_4() -> float:
    return training_bytes("alexnet", batch=128) / GIB


def check_4(answer) -> bool:
    return verdict(answer, solution_4(), rel=0.01,
                   hint="4 bytes x (3 x parameters + kept activation elements at batch 128), in GiB (2**30 bytes)")
