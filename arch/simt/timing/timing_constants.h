// Figures the SIMT timing model needs that GpuConfig does not carry. Each is a modelling
// choice, named here so a reader finds it in one place and so it can become a config field
// later without hunting through the code.
#pragma once

#include <cstdint>
#include <limits>

namespace loom::simt {

// "Never, unless something outside this element wakes it" (a barrier, a CTA launch).
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max() / 4;

// Instructions the LD/ST (MIO) queue of an SM holds between issue and the start of their
// service in the L1/shared pipeline. When it is full, memory instructions stall at issue
// (StallReason::memory_pipe). Four per sub-core, the depth GPGPU-Sim gives its LD/ST
// pipeline register per scheduler; not published for real parts.
inline constexpr int kMioQueueEntries = 16;

// ld.param / ld.const: SASS folds these into constant-bank operands of the consumer, so they
// cost about one ALU latency and never enter the MIO queue or the caches.
inline constexpr int kParamLoadLatency = 4;

// Registers are allocated per warp in units of this many (CUDA occupancy calculator,
// compute capability 7.x-9.x: "register allocation unit size 256, granularity warp").
inline constexpr int kRegisterAllocationUnit = 256;
// Shared memory is allocated per CTA in units of this many bytes (same source).
inline constexpr int kSharedAllocationUnit = 256;

// Upper bounds of small fixed-size per-warp structures (no heap on the hot path).
inline constexpr int kMaxIbufferEntries = 8;
inline constexpr int kScoreboardEntries = 64;  // pending register writes per warp
inline constexpr int kMaxSectorsPerLine = 4;  // 128-byte lines of 32-byte sectors
// A cache line keeps each sector's arrival cycle in 32 bits, after its tag array's time base
// (sectored_tag_array.h); the engine moves the bases forward this often, a quarter of the
// range, so that every arrival in flight stays within it.
inline constexpr int64_t kSectorTimeRebaseCycles = int64_t{1} << 30;
inline constexpr int kMaxRegisterBanks = 64;
inline constexpr int kMaxSharedBanks = 64;

// Warp MMAs are split across the four octets of a warp (Raihan et al., ISPASS 2019).
inline constexpr int kOctetsPerWarp = 4;

// SMs interact only through the L2 subsystem. The engine advances the GPU in windows of
// this many cycles, running each SM through a window before the next (in an order that
// rotates from window to window), so one SM's warps and caches, and the functional model's
// state for them, stay in the host's caches longer. The price: within a window, an SM's
// requests may reach a shared L2 slice, NoC port or DRAM channel after another SM's
// requests from up to this many cycles later, so under contention a request may queue up
// to this many cycles more or less than in strict cycle order (throughput is unchanged).
// Measured on naive/tiled GEMM and triad (V100, 5,120 resident warps, real functional
// model): 32 runs 1.25x faster than 1 and changes kernel cycles by 0.0-0.8%; 64 would be
// 1.35x but +2.7% on naive GEMM. 1 gives strict cycle order.
inline constexpr int64_t kSmWindowCycles = 32;

// The engine hands control back to the SystemC kernel (and reports progress) at least once
// per this many simulated cycles.
inline constexpr int64_t kSyncQuantumCycles = int64_t{1} << 16;

}  // namespace loom::simt
