#!/usr/bin/env python3
"""Compare loom against SCALE-Sim v2 on ResNet-50: wall time and compute cycles per layer.

Usage:
    python3 bench/compare_scalesim.py --scalesim /path/to/scale-sim-v2 [--layers N]

SCALE-Sim is NOT a dependency of loom: it is used only by this script, which needs a
SCALE-Sim v2 checkout (the directory holding scalesim/scale.py) and a Python interpreter
that can import numpy and tqdm (SCALE-Sim's own requirements). Pass it with --python, or
let the script pick the first of this interpreter and /usr/bin/python3 that imports both.
Nothing else in the repository uses this script. Without a checkout it exits with status 2.

What it does, in a temporary directory removed at the end (or in --workdir, kept):
  1. writes one SCALE-Sim .cfg matching loom's default array: 128x128 weight-stationary
     (--array N and --dataflow ws/is/os change the array and the dataflow),
     1024 kB ifmap / 1024 kB filter / 512 kB ofmap scratchpads, InterfaceBandwidth CALC
     (SCALE-Sim then reports stall-free timing; loom treats such a .cfg as unlimited DRAM);
  2. converts workloads/networks/resnet50.json (or --network) into a SCALE-Sim conv
     topology CSV (see to_scalesim_rows for the padding convention), and one single-layer
     CSV per layer;
  3. runs SCALE-Sim once per layer (python3 scalesim/scale.py -c cfg -t layer.csv -p out),
     timing each run and reading Total Cycles / Stall Cycles from COMPUTE_REPORT.csv;
  4. runs `loom run --arch cfg --workload csv --scalesim-compat` on every single-layer CSV
     and on the CSV of all compared layers, --repeats times each (median wall time), and
     reads cycles.compute / cycles.total from report.json;
  5. prints one line per layer (SCALE-Sim s, loom s, speedup, SCALE-Sim cycles, loom
     cycles, difference) and totals, and optionally writes everything as JSON (--json).

Both wall times include process start-up (Python + numpy import for SCALE-Sim, about
0.2 s here; loom's is a few ms). SCALE-Sim's "Total Cycles" is the cycle index of the last
output row it services; "compute cycles" below is Total Cycles - Stall Cycles (equal to
Total Cycles under CALC, where the stall count is 0).

Only the Python standard library is used.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_NAME = "loom_compare_128x128_ws"

# SCALE-Sim .cfg equal to loom's default array (configs/systolic_128x128_ws.json) as far as
# SCALE-Sim can express it. Offsets/bandwidth/banks are SCALE-Sim bookkeeping; the
# [layout] and [sparsity] sections and request-buffer keys are what newer SCALE-Sim v2
# releases read (older ones ignore them, and so does loom).
CFG_TEXT = f"""[general]
run_name = {RUN_NAME}

[architecture_presets]
ArrayHeight:    {{ROWS}}
ArrayWidth:     {{COLS}}
IfmapSramSzkB:    1024
FilterSramSzkB:   1024
OfmapSramSzkB:    512
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : {{DATAFLOW}}
MemoryBanks:   1
ReadRequestBuffer: 32
WriteRequestBuffer: 32

[layout]
IfmapCustomLayout: False
IfmapSRAMBankBandwidth: 128
IfmapSRAMBankNum: 1
IfmapSRAMBankPort: 2
FilterCustomLayout: False
FilterSRAMBankBandwidth: 128
FilterSRAMBankNum: 1
FilterSRAMBankPort: 2

[sparsity]
SparsitySupport : false
SparseRep : ellpack_block
OptimizedMapping : false
BlockSize : 8
RandomNumberGeneratorSeed : 40

[run_presets]
InterfaceBandwidth: CALC
UseRamulatorTrace: False
"""

CSV_HEADER = ("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
              "Channels, Num Filter, Strides,\n")


def die(message, code=2):
    print(f"compare_scalesim: {message}", file=sys.stderr)
    sys.exit(code)


def to_scalesim_rows(network, full_pad=False):
    """Returns [(name, H, W, R, S, C, K, stride)] for a loom network JSON.

    SCALE-Sim has no padding column: its IFMAP height/width are the already padded input,
    and its output size is ceil((H - R + stride) / stride), which keeps a last, partial
    window when stride does not divide H - R. With H = in + 2*pad that gives one output
    row/column more than the real layer for ResNet-50's stride-2 convs (e.g. conv1:
    230 -> 113 instead of 112). By default the padded input is therefore trimmed to the
    rows the real layer reads, H = (out - 1) * stride + kernel with
    out = floor((in + 2*pad - kernel) / stride) + 1, so both simulators see exactly the
    ResNet-50 shapes and MACs. --full-pad writes H = in + 2*pad instead.
    A fully connected layer becomes a 1x1 conv on a 1x1 input with in_features channels.
    """
    rows = []
    for layer in network["layers"]:
        kind = layer.get("type", layer.get("kind"))
        name = layer["name"]
        if "DP" in name or "," in name:
            die(f"layer name '{name}' would be misread by SCALE-Sim (contains 'DP' or ',')")
        if kind == "conv2d":
            if layer.get("groups", 1) != 1:
                die(f"layer '{name}': grouped convolutions are not converted")
            h_in = layer.get("input_h", layer.get("input_hw"))
            w_in = layer.get("input_w", layer.get("input_hw"))
            k_h = layer.get("kernel_h", layer.get("kernel"))
            k_w = layer.get("kernel_w", layer.get("kernel"))
            stride = layer.get("stride", 1)
            if isinstance(stride, list):
                if len(set(stride)) != 1:
                    die(f"layer '{name}': unequal strides are not converted")
                stride = stride[0]
            pad = layer.get("padding", 0)
            if isinstance(pad, list):
                if len(set(pad)) != 1:
                    die(f"layer '{name}': unequal padding is not converted")
                pad = pad[0]
            dims = []
            for size, kern in ((h_in, k_h), (w_in, k_w)):
                padded = size + 2 * pad
                out = (padded - kern) // stride + 1
                dims.append(padded if full_pad else (out - 1) * stride + kern)
            rows.append((name, dims[0], dims[1], k_h, k_w, layer["in_channels"],
                         layer["out_channels"], stride))
        elif kind == "fc":
            rows.append((name, 1, 1, 1, 1, layer["in_features"], layer["out_features"], 1))
        else:
            die(f"layer '{name}': type '{kind}' is not converted")
    return rows


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write(CSV_HEADER)
        for row in rows:
            f.write(", ".join(str(x) for x in row) + ",\n")


def pick_python(requested):
    candidates = [requested] if requested else [sys.executable, "/usr/bin/python3"]
    for exe in candidates:
        if not exe or not shutil.which(exe) and not os.path.exists(exe):
            continue
        probe = subprocess.run([exe, "-c", "import numpy, tqdm"], capture_output=True)
        if probe.returncode == 0:
            return exe
    die("no Python interpreter with numpy and tqdm for SCALE-Sim (tried "
        + ", ".join(c for c in candidates if c) + "); pass --python")


def read_compute_report(out_dir):
    path = os.path.join(out_dir, RUN_NAME, "COMPUTE_REPORT.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r and r[0].strip()]
    header = [h.strip() for h in rows[0]]
    out = []
    for r in rows[1:]:
        cells = {header[i]: r[i].strip() for i in range(min(len(header), len(r)))}
        out.append((int(float(cells["Total Cycles"])), int(float(cells["Stall Cycles"]))))
    return out


def run_scalesim(python, checkout, cfg, layer_csv, out_dir, log_path, timeout):
    cmd = [python, os.path.join(checkout, "scalesim", "scale.py"),
           "-c", cfg, "-t", layer_csv, "-p", out_dir]
    env = dict(os.environ)
    env["PYTHONPATH"] = checkout + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with open(log_path, "w") as log:
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=os.path.join(checkout, "scalesim"), env=env,
                                  stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc = None
        seconds = time.perf_counter() - start
    return rc, seconds


def run_loom(loom, cfg, workload, out_dir, repeats):
    cmd = [loom, "run", "--arch", cfg, "--workload", workload, "--scalesim-compat",
           "--out", out_dir, "-q"]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            die(f"loom failed ({proc.returncode}) on {workload}:\n{proc.stdout}{proc.stderr}", 1)
    with open(os.path.join(out_dir, "report.json")) as f:
        report = json.load(f)
    cycles = [(x["name"], x["cycles"]["compute"], x["cycles"]["total"]) for x in report["layers"]]
    return statistics.median(times), times, cycles


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scalesim", required=True,
                    help="SCALE-Sim v2 checkout (the directory that holds scalesim/scale.py)")
    ap.add_argument("--dataflow", choices=["ws", "is", "os"], default="ws")
    ap.add_argument("--array", type=int, default=128, help="array rows = cols (default 128)")
    ap.add_argument("--layers", type=int, default=None,
                    help="compare only the first N layers (default: all)")
    ap.add_argument("--network", default=os.path.join(REPO, "workloads", "networks", "resnet50.json"))
    ap.add_argument("--loom", default=os.path.join(REPO, "build", "loom"))
    ap.add_argument("--python", default=None, help="interpreter for SCALE-Sim (needs numpy, tqdm)")
    ap.add_argument("--repeats", type=int, default=5, help="loom runs per measurement (median)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds allowed per SCALE-Sim layer run (default: none)")
    ap.add_argument("--budget", type=float, default=None,
                    help="stop starting SCALE-Sim layers after this many seconds in total")
    ap.add_argument("--one-process", action="store_true",
                    help="also time one SCALE-Sim process over all compared layers (how it is "
                         "usually run: one Python start-up instead of one per layer)")
    ap.add_argument("--full-pad", action="store_true",
                    help="IFMAP size = input + 2*padding (see to_scalesim_rows)")
    ap.add_argument("--workdir", default=None, help="keep generated files here (default: temp)")
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = ap.parse_args()

    checkout = os.path.abspath(args.scalesim)
    if not os.path.isfile(os.path.join(checkout, "scalesim", "scale.py")):
        die(f"no SCALE-Sim checkout at '{args.scalesim}' (expected {checkout}/scalesim/scale.py). "
            "SCALE-Sim is optional and used only by this script; pass --scalesim PATH to a "
            "scale-sim-v2 checkout.")
    if not os.access(args.loom, os.X_OK):
        die(f"loom binary not found at '{args.loom}' (build it: cd build && cmake .. && make)")
    if args.repeats < 1:
        die("--repeats must be >= 1")
    python = pick_python(args.python)

    with open(args.network) as f:
        rows = to_scalesim_rows(json.load(f), full_pad=args.full_pad)
    if args.layers is not None:
        if args.layers < 1:
            die("--layers must be >= 1")
        rows = rows[:args.layers]

    workdir = args.workdir or tempfile.mkdtemp(prefix="loom_vs_scalesim_")
    os.makedirs(workdir, exist_ok=True)
    shape = f"{args.array}x{args.array}_{args.dataflow}"
    cfg = os.path.join(workdir, f"loom_compare_{shape}.cfg")
    with open(cfg, "w") as f:
        f.write(CFG_TEXT.replace("{ROWS}", str(args.array)).replace("{COLS}", str(args.array))
                .replace("{DATAFLOW}", args.dataflow))
    write_csv(os.path.join(workdir, "network.csv"), rows)

    print(f"SCALE-Sim: {checkout} (python: {python})")
    print(f"loom:      {args.loom}")
    print(f"workdir:   {workdir}")
    print(f"config:    {args.array}x{args.array} {args.dataflow}, 1024/1024/512 kB, CALC; {len(rows)} layers requested")
    try:
        load = os.getloadavg()
        print(f"load avg:  {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    except OSError:
        pass
    print()

    # SCALE-Sim, one process per layer.
    results = []
    ss_started = time.perf_counter()
    for i, row in enumerate(rows):
        if args.budget is not None and time.perf_counter() - ss_started > args.budget:
            print(f"budget of {args.budget:.0f} s used: stopping after {len(results)} layers")
            break
        name = row[0]
        layer_dir = os.path.join(workdir, f"layer{i:02d}")
        os.makedirs(layer_dir, exist_ok=True)
        layer_csv = os.path.join(layer_dir, "layer.csv")
        write_csv(layer_csv, [row])
        rc, seconds = run_scalesim(python, checkout, cfg, layer_csv,
                                   os.path.join(layer_dir, "scalesim_out"),
                                   os.path.join(layer_dir, "scalesim.log"), args.timeout)
        report = read_compute_report(os.path.join(layer_dir, "scalesim_out")) if rc == 0 else None
        if not report:
            why = "timed out" if rc is None else f"failed (exit {rc})"
            print(f"SCALE-Sim {why} on layer {i} '{name}' after {seconds:.1f} s; "
                  f"log: {os.path.join(layer_dir, 'scalesim.log')}")
            break
        total, stall = report[0]
        results.append({"index": i, "name": name, "row": list(row), "scalesim_s": seconds,
                        "scalesim_total_cycles": total, "scalesim_stall_cycles": stall,
                        "scalesim_compute_cycles": total - stall, "layer_csv": layer_csv})
        print(f"  SCALE-Sim layer {i:2d} {name:22s} {seconds:9.2f} s  {total - stall:>10d} cycles",
              flush=True)
    if not results:
        die("SCALE-Sim completed no layer", 1)

    # loom, per layer and on all compared layers at once.
    for r in results:
        out = os.path.join(workdir, f"layer{r['index']:02d}", "loom_out")
        med, _, cycles = run_loom(args.loom, cfg, r["layer_csv"], out, args.repeats)
        r["loom_s"] = med
        r["loom_compute_cycles"] = cycles[0][1]
        r["loom_total_cycles"] = cycles[0][2]
    compared_csv = os.path.join(workdir, "compared_layers.csv")
    write_csv(compared_csv, [tuple(r["row"]) for r in results])
    all_med, all_times, all_cycles = run_loom(args.loom, cfg, compared_csv,
                                              os.path.join(workdir, "loom_all"), args.repeats)
    for r, (name, compute, total) in zip(results, all_cycles):
        assert name == r["name"], (name, r["name"])
        assert compute == r["loom_compute_cycles"], name

    one = None
    if args.one_process:
        out = os.path.join(workdir, "scalesim_all")
        rc, seconds = run_scalesim(python, checkout, cfg, compared_csv, out,
                                   os.path.join(workdir, "scalesim_all.log"), None)
        report = read_compute_report(out) if rc == 0 else None
        if not report or len(report) != len(results):
            die(f"SCALE-Sim failed on all compared layers in one process (exit {rc}); "
                f"log: {os.path.join(workdir, 'scalesim_all.log')}", 1)
        same = all(t - st == r["scalesim_compute_cycles"] for (t, st), r in zip(report, results))
        one = {"seconds": seconds, "cycles_match_per_layer_runs": same}

    print()
    head = (f"{'#':>2} {'layer':22s} {'SCALE-Sim s':>11} {'loom s':>9} {'speedup':>9} "
            f"{'SCALE-Sim cyc':>13} {'loom cyc':>10} {'loom-SS':>7}  equal")
    print(head)
    print("-" * len(head))
    for r in results:
        diff = r["loom_compute_cycles"] - r["scalesim_compute_cycles"]
        print(f"{r['index']:2d} {r['name']:22s} {r['scalesim_s']:11.2f} {r['loom_s']:9.4f} "
              f"{r['scalesim_s'] / r['loom_s']:8.0f}x {r['scalesim_compute_cycles']:13d} "
              f"{r['loom_compute_cycles']:10d} {diff:+7d}  {'yes' if diff == 0 else 'no'}")
    print("-" * len(head))
    ss_total = sum(r["scalesim_s"] for r in results)
    ss_cycles = sum(r["scalesim_compute_cycles"] for r in results)
    loom_cycles = sum(r["loom_compute_cycles"] for r in results)
    loom_sum = sum(r["loom_s"] for r in results)
    equal = sum(1 for r in results if r["loom_compute_cycles"] == r["scalesim_compute_cycles"])
    print(f"   {'total (per-layer runs)':22s} {ss_total:11.2f} {loom_sum:9.4f} "
          f"{ss_total / loom_sum:8.0f}x {ss_cycles:13d} {loom_cycles:10d} "
          f"{loom_cycles - ss_cycles:+7d}")
    print(f"   {'loom, one run, all':22s} {'':11s} {all_med:9.4f} {ss_total / all_med:8.0f}x")
    if one:
        print(f"   {'SCALE-Sim, one process':22s} {one['seconds']:11.2f} {all_med:9.4f} "
              f"{one['seconds'] / all_med:8.0f}x  (cycles as per-layer runs: "
              f"{'yes' if one['cycles_match_per_layer_runs'] else 'NO'})")
    print()
    print(f"{len(results)} layers; cycles equal on {equal}/{len(results)}; "
          f"SCALE-Sim {ss_total:.1f} s (sum of per-layer processes) vs loom {all_med * 1000:.1f} ms "
          f"(median of {args.repeats} runs over the same layers) = {ss_total / all_med:.0f}x")
    diffs = {r["loom_compute_cycles"] - r["scalesim_compute_cycles"] for r in results}
    if diffs - {0}:
        print(f"cycle differences seen (loom - SCALE-Sim): {sorted(diffs)}; loom --scalesim-compat "
              "is meant to reproduce SCALE-Sim exactly (docs/systolic-conventions.md)")
    stalls = [r for r in results if r["scalesim_stall_cycles"]]
    if stalls:
        print(f"note: SCALE-Sim reported stall cycles on {len(stalls)} layers under CALC "
              "(some SCALE-Sim versions charge ofmap-buffer drains); compared Total - Stall")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scalesim_checkout": checkout, "python": python, "loom": args.loom,
                       "cfg": CFG_TEXT, "repeats": args.repeats, "layers": results,
                       "loom_all_layers_s": all_med, "loom_all_layers_runs_s": all_times,
                       "scalesim_total_s": ss_total, "scalesim_one_process": one,
                       "cpu_count": os.cpu_count(),
                       "loadavg_end": list(os.getloadavg())}, f, indent=1)
        print(f"results: {args.json}")
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
