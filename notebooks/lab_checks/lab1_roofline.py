"""Checks for lab 1, roofline and arithmetic intensity (notebooks/01_roofline.ipynb).

Every expected answer is computed with loom when asked, never typed in, so the checks
follow the shipped configs and workloads."""

from __future__ import annotations

import loom

from .common import verdict

GPU = "v100"
FP16_BYTES = 2  # the lab evaluates at precision="fp16": 2 bytes per element


def _roofs(arch: str = GPU) -> tuple[dict, dict]:
    """(compute roofs by name, bandwidth roofs by level), in FLOP/s and bytes/s."""
    roofs = loom.roofs(arch)
    compute = {r["name"]: r["flops_per_second"] for r in roofs["compute_roofs"]}
    bandwidth = {r["level"]: r["bytes_per_second"] for r in roofs["bandwidth_roofs"]}
    return compute, bandwidth


def ridge_point(arch: str = GPU, roof: str | None = None, level: str = "dram") -> float:
    """FLOP/byte where a bandwidth roof meets a compute roof (default: the peak)."""
    compute, bandwidth = _roofs(arch)
    peak = compute[roof] if roof is not None else max(compute.values())
    return peak / bandwidth[level]


def compulsory_intensity(layer: dict, bytes_per_element: int = FP16_BYTES) -> float:
    """FLOPs per byte if every operand crossed DRAM exactly once: 2*MACs over the bytes of
    the layer's inputs, weights and outputs (loom's layer `elements`)."""
    return 2 * layer["macs"] / (bytes_per_element * sum(layer["elements"].values()))


def _fc_network(in_features: int, out_features: int, batch: int) -> loom.Network:
    return loom.load_workload({"name": f"fc {in_features}x{out_features}", "batch": batch,
                               "layers": [{"name": "fc", "type": "fc", "in_features": in_features,
                                           "out_features": out_features}]})


# Exercise 1: the V100's FP32 (CUDA-core) ridge point against DRAM, FLOP/byte.
def solution_1() -> float:
    return ridge_point(GPU, roof="fp32", level="dram")


def check_1(answer) -> bool:
    return verdict(answer, solution_1(), rel=0.01,
                   hint="divide the 'fp32' compute roof (FLOP/s) by the 'dram' bandwidth roof (bytes/s)")


# Exercise 2: the attainable performance of AlexNet's fc6 at batch 1 on the V100 (fp16),
# TFLOP/s: min(peak, DRAM bandwidth x loom's intensity for the layer).
def solution_2() -> float:
    layer = loom.evaluate(GPU, "alexnet", precision="fp16", layers=["fc6"])["layers"][0]
    compute, bandwidth = _roofs(GPU)
    intensity = layer["roofline"]["intensity_flops_per_byte"]
    return min(max(compute.values()), bandwidth["dram"] * intensity) / 1e12


def check_2(answer) -> bool:
    return verdict(answer, solution_2(), rel=0.02,
                   hint="attainable = min(peak FLOP/s, DRAM bytes/s x intensity); give it in TFLOP/s (1e12)")


# Exercise 3: the smallest batch at which AlexNet's fc7, run in fp16, reaches the V100's
# fp16 DRAM ridge point by its compulsory intensity.
def solution_3() -> int:
    fc7 = next(l for l in loom.load_workload("alexnet").layers() if l["name"] == "fc7")
    k, n = fc7["gemm_view"]["k"], fc7["gemm_view"]["n"]
    ridge = ridge_point(GPU)

    def reaches(batch: int) -> bool:
        return compulsory_intensity(_fc_network(k, n, batch).layers()[0]) >= ridge

    low, high = 1, 1
    while not reaches(high):  # intensity grows with the batch: bracket, then bisect
        low, high = high, high * 2
    while low < high:
        mid = (low + high) // 2
        if reaches(mid):
            high = mid
        else:
            low = mid + 1
    return low


def check_3(answer) -> bool:
    return verdict(answer, solution_3(), rel=0.0,
                   hint="intensity = 2*MACs / (2 bytes x (ifmap + filter + ofmap elements)); "
                        "try batches until it reaches the ridge point, and give the first one")
