// The benchmarks of loom_bench (docs/performance.md). Each takes its own arguments and
// returns a process exit status; bench_main.cpp lists them by name.
#pragma once

#include <string>
#include <vector>

// ResNet-50 on the 128x128 WS array at cycle level, and the cycle model against the
// PE-level model. Arguments: [REPEATS] (default 7).
int bench_resnet50(const std::vector<std::string>& args);

// Mapper: cost-model evaluations per second per core, and mapping every ResNet-50 layer onto
// the Eyeriss-like config with the default search, each against exhaustive search.
// Arguments: [--no-reference] [--threads N].
int bench_mapper(const std::vector<std::string>& args);

// SIMT model: warp instructions/s and cycles/s on the V100 config for the WMMA and tiled
// GEMMs, against the functional model alone, with the verdict against issue 4's target at
// 1024^3. Arguments: [--size N] [--repeats R] [--kernel wmma_gemm|tiled_gemm] [--sms S].
int bench_gpu(const std::vector<std::string>& args);

// Sweeps: the 1,000-point systolic ResNet-50 grid on the analytic model with -j 1 and -j 2,
// and with its front re-simulated at cycle level. No arguments.
int bench_sweep(const std::vector<std::string>& args);

// Training: the full `loom train` estimate of ResNet-50 on a DGX-1 (8 V100s) with every
// parallelism, timed end to end. Arguments: [REPEATS] (default 3).
int bench_train(const std::vector<std::string>& args);

// Limits: the largest shipped cases and the cases at loom's limits (10^7 folds, a 10^7-point
// sweep, 10^12-MAC layers), each in a forked child: wall time, peak RSS and outcome (ran, or
// refused with the message). Arguments: [--quick] (without the SIMT-model network).
int bench_limits(const std::vector<std::string>& args);
