"""Checks for lab 3, tensor cores and precision (notebooks/03_tensor_cores_precision.ipynb).

Every expected answer is computed with loom when asked, never typed in, so the checks
follow the shipped GPU configs and kernels. The simulations are cached (lru_cache)."""

from __future__ import annotations

import functools

import loom

from .common import verdict

FLOPS_PER_FMA = 2  # an FMA (a MAC) is a multiply and an add

# The tensor-core rate keys of a GPU config (its "tensor_core.rates"), in the order the lab
# plots them, with the names the datasheets give the precisions.
PRECISIONS = {"f16": "FP16", "bf16": "BF16", "tf32": "TF32", "s8": "INT8", "s4": "INT4", "b1": "INT1 (binary)"}


def gpu_config(arch: str) -> dict:
    """The resolved config of a shipped GPU architecture, as a dict."""
    return loom.load_architecture(arch).to_dict()


def fp32_flops_per_clock_per_sm(cfg: dict) -> float:
    """FP32 FLOPs per SM clock on the CUDA cores: lanes per sub-core (each one FMA per
    initiation interval) x sub-cores x 2."""
    unit = cfg["units"]["fp32"]
    return cfg["subcores_per_sm"] * unit["lanes"] / unit["initiation_interval"] * FLOPS_PER_FMA


def tensor_ops_per_clock_per_sm(cfg: dict, rate: str = "f16") -> float:
    """Dense tensor-core operations per SM clock at one precision: an m x n x k MMA per
    tensor core per clock at the FP16 rate (m*n*k FMAs), scaled by the precision's rate
    multiplier, x tensor cores per sub-core x sub-cores x 2 ops per FMA. 0 where the config
    has no tensor path for that precision."""
    tc = cfg["tensor_core"]
    fmas = tc["m"] * tc["n"] * tc["k"] * tc["rates"][rate]
    return cfg["subcores_per_sm"] * tc["per_subcore"] * fmas * FLOPS_PER_FMA


def peak_ops_per_second(cfg: dict, ops_per_clock_per_sm: float) -> float:
    return ops_per_clock_per_sm * cfg["sms"] * cfg["clock_hz"]


@functools.lru_cache(maxsize=None)
def gemm_report(arch: str, kernel: str, size: int) -> dict:
    """One square GEMM launch (M = N = K = size) of a shipped kernel on the SIMT model."""
    return loom.gpu_kernel(arch, kernel, {"M": size, "N": size, "K": size})


@functools.lru_cache(maxsize=None)
def padded_gemm(m: int, n: int, k: int, arch: str = "v100") -> tuple[int, int, int, int]:
    """(M, N, K of the launch loom runs for a gemm layer m x n x k in fp16, the layer's MACs),
    from a cycle-level loom.run of a one-layer network."""
    net = {"name": f"gemm {m}x{n}x{k}", "layers": [{"name": "g", "type": "gemm", "m": m, "n": n, "k": k}]}
    layer = loom.run(arch, net, precision="fp16")["layers"][0]
    sizes = layer["kernel_sizes"]
    return sizes["M"], sizes["N"], sizes["K"], layer["macs"]


# Exercise 1: dense FP16 tensor-core FLOPs per clock per SM of the A100 config.
def solution_1() -> float:
    return tensor_ops_per_clock_per_sm(gpu_config("a100"), "f16")


def check_1(answer) -> bool:
    return verdict(answer, solution_1(), rel=0.001,
                   hint="sub-cores x tensor cores per sub-core x (m*n*k FMAs x the f16 rate) x 2 FLOPs, "
                        "all from the A100's config")


# Exercise 2: how many times faster wmma_gemm (tensor cores) runs than tiled_gemm (FP32
# lanes) at M = N = K = 384 on the V100 SIMT model (ratio of simulated times).
EXERCISE_2_SIZE = 384


def solution_2() -> float:
    tiled = gemm_report("v100", "tiled_gemm", EXERCISE_2_SIZE)
    wmma = gemm_report("v100", "wmma_gemm", EXERCISE_2_SIZE)
    return tiled["seconds"] / wmma["seconds"]


def check_2(answer) -> bool:
    return verdict(answer, solution_2(), rel=0.02,
                   hint="run loom.gpu_kernel('v100', kernel, {'M': 384, 'N': 384, 'K': 384}) for both "
                        "kernels and divide tiled_gemm's 'seconds' by wmma_gemm's")


# Exercise 3: the T4 config's dense INT4 tensor-core peak, in TOPS (10^12 ops/s).
def solution_3() -> float:
    cfg = gpu_config("t4")
    return peak_ops_per_second(cfg, tensor_ops_per_clock_per_sm(cfg, "s4")) / 1e12


def check_3(answer) -> bool:
    return verdict(answer, solution_3(), rel=0.01,
                   hint="ops per clock per SM at the 's4' rate x SMs x clock_hz, then divide by 1e12")


# Exercise 4: a gemm layer m = 100, n = 1000, k = 1000 in fp16 on the GPU model: the fraction
# of the tensor-core FLOPs executed that are useful (the layer's MACs over the padded
# launch's M*N*K).
EXERCISE_4_LAYER = (100, 1000, 1000)


def solution_4() -> float:
    m, n, k, macs = padded_gemm(*EXERCISE_4_LAYER)
    return macs / (m * n * k)


def check_4(answer) -> bool:
    return verdict(answer, solution_4(), rel=0.005,
                   hint="a fraction between 0 and 1: pad each of M, N, K up to the next multiple of 16, "
                        "then divide the layer's MACs by the padded M*N*K")
