#!/usr/bin/env python3
"""Interleaved A/B pairs of two builds of the SIMT benchmark (`loom_bench gpu`).

    python3 bench/ab.py OLD NEW [--kernel wmma_gemm] [--size 1024] [--pairs 10] [--sms S]

OLD and NEW are loom_bench executables, or build directories holding one. Each pair runs
both once, one after the other (which goes first alternates), pinned to one core when
taskset is there, and prints the two rates and their ratio NEW/OLD; the end prints the
mean and median change over the pairs. The machines loom is measured on are noisy (wall
times move by 20% from hour to hour, docs/performance.md), so a change is judged by
pairs run side by side, not by runs made at different times; and a change of a few
percent needs ten pairs or more to tell from the noise.

Both builds must simulate the same thing: where they report different warp instructions
or cycles for the launch, each such pair says so (a speed change must leave every result
as it was: tests/test_simt_timing_reference.cpp checks that). Interrupted (Ctrl-C), it
prints the summary of the pairs finished so far.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys


class InputError(Exception):
    pass


class RunFailed(Exception):
    """A benchmark run that exited with an error; `code` is its exit status."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def executable(path):
    """The loom_bench that `path` names: the file itself, or build_dir/loom_bench."""
    candidate = os.path.join(path, "loom_bench") if os.path.isdir(path) else path
    if not os.path.isfile(candidate):
        raise InputError(f"{path}: expected a loom_bench executable or a build directory holding one; "
                         f"{candidate} does not exist")
    if not os.access(candidate, os.X_OK):
        raise InputError(f"{candidate}: not executable")
    return os.path.abspath(candidate)  # a bare name would otherwise be looked up in PATH


def run_once(binary, args, kernel):
    """One benchmark run: (warp instructions, cycles, rate) from the kernel's line."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    done = subprocess.run(pin + [binary, "gpu"] + args, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RunFailed(f"{binary} gpu {' '.join(args)} exited with {done.returncode}: " + " | ".join(tail),
                        done.returncode)
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0] == kernel:
            try:
                return int(fields[1]), int(fields[2]), float(fields[4])
            except ValueError:
                break
    raise RunFailed(f"{binary}: no result line for {kernel} in its output (expected "
                    f"'{kernel} WARP_INSTR CYCLES WALL_S RATE ...')", 1)


def summary(ratios):
    if not ratios:
        return "no pair finished"
    changes = [100.0 * (r - 1.0) for r in ratios]
    faster = sum(1 for r in ratios if r > 1.0)
    return (f"{len(ratios)} pairs: NEW/OLD mean {statistics.mean(changes):+.1f}%, median "
            f"{statistics.median(changes):+.1f}% (from {min(changes):+.1f} to {max(changes):+.1f}%), "
            f"NEW faster in {faster}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="loom_bench (or its build directory) of the build before the change")
    parser.add_argument("new", help="loom_bench (or its build directory) of the build with it")
    parser.add_argument("--kernel", default="wmma_gemm", choices=["wmma_gemm", "tiled_gemm"])
    parser.add_argument("--size", type=int, default=1024, help="M = N = K (default 1024)")
    parser.add_argument("--pairs", type=int, default=10, help="pairs to run (default 10)")
    parser.add_argument("--sms", type=int, help="SMs of the V100 config (default: its own 80)")
    options = parser.parse_args(argv)
    try:
        if options.pairs < 1:
            raise InputError(f"--pairs: expected at least 1, got {options.pairs}")
        # The kernel's own rules (the WMMA GEMM's multiples of 16) are loom_bench's to check:
        # a size it refuses stops the first run with its message and exit code 2.
        if options.size < 1:
            raise InputError(f"--size: expected at least 1, got {options.size}")
        builds = {"OLD": executable(options.old), "NEW": executable(options.new)}
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args = ["--size", str(options.size), "--kernel", options.kernel]
    if options.sms is not None:
        args += ["--sms", str(options.sms)]
    print(f"{options.kernel} {options.size}^3, OLD {builds['OLD']}, NEW {builds['NEW']}")
    print(f"{'pair':>4} {'OLD warp_instr/s':>17} {'NEW warp_instr/s':>17} {'NEW/OLD':>8}")
    ratios = []
    try:
        for pair in range(options.pairs):
            order = ["OLD", "NEW"] if pair % 2 == 0 else ["NEW", "OLD"]
            result = {name: run_once(builds[name], args, options.kernel) for name in order}
            (old_instr, old_cycles, old_rate), (new_instr, new_cycles, new_rate) = result["OLD"], result["NEW"]
            ratios.append(new_rate / old_rate)
            note = ""
            if (old_instr, old_cycles) != (new_instr, new_cycles):
                note = (f"  results differ: OLD {old_instr} warp instructions in {old_cycles} cycles, "
                        f"NEW {new_instr} in {new_cycles}")
            print(f"{pair + 1:>4} {old_rate:>17.4g} {new_rate:>17.4g} {ratios[-1]:>8.3f}{note}", flush=True)
    except KeyboardInterrupt:
        print("interrupted")
    except RunFailed as e:
        print(f"error: {e}", file=sys.stderr)
        print(summary(ratios))
        return 2 if e.code == 2 else 1  # 2: loom_bench refused its input, which is ab's
    print(summary(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
