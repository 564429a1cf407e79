"""The loom Python module against the CLI: the same results, files and error messages.

Run by ctest (test "python") with PYTHONPATH=build/python and LOOM_BINARY set; by hand:
  PYTHONPATH=build/python LOOM_BINARY=build/loom /usr/bin/python3 -m unittest tests/python/test_bindings.py
"""

from __future__ import annotations

import filecmp
import json
import os
import signal
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

import loom

ROOT = Path(__file__).resolve().parents[2]
LOOM = os.environ.get("LOOM_BINARY", str(ROOT / "build" / "loom"))


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([LOOM, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def cli_error(*args: str) -> str:
    """The one line `loom` prints for bad input, without its "loom: error: " prefix."""
    r = cli(*args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("loom: error: "), line
    return line[len("loom: error: "):]


def write_spec(directory: Path, **overrides) -> Path:
    """A small analytic sweep over the shipped 32x32 array (12 points)."""
    spec = {
        "schema": "loom-sweep/1",
        "name": "py_small",
        "base": str(ROOT / "configs" / "systolic_32x32_ws.json"),
        "parameters": {"array.rows": [16, 32], "array.cols": [16, 32, 64], "array.dataflow": ["ws", "os"]},
        "workloads": [str(ROOT / "workloads" / "networks" / "lenet5.json")],
        "objectives": ["latency", "area"],
        "strategy": {"kind": "grid"},
        "fidelity": {"search": "analytic", "pareto": "none"},
    }
    spec.update(overrides)
    path = directory / "spec.json"
    path.write_text(json.dumps(spec, indent=2))
    return path


class Loading(unittest.TestCase):
    def test_shipped_names_paths_and_dicts_load_the_same_architecture(self):
        by_name = loom.load_architecture("systolic_32x32_ws")
        by_path = loom.load_architecture(ROOT / "configs" / "systolic_32x32_ws.json")
        with open(ROOT / "configs" / "systolic_32x32_ws.json") as f:
            raw = json.load(f)
        cwd = os.getcwd()
        try:
            os.chdir(ROOT / "configs")  # a dict's relative paths resolve from the working directory
            by_dict = loom.load_architecture(raw)
        finally:
            os.chdir(cwd)
        self.assertEqual(by_name.kind, "systolic")
        self.assertEqual(by_name.to_dict(), by_path.to_dict())
        self.assertEqual(by_name.to_dict(), by_dict.to_dict())
        self.assertIn("v100", loom.shipped_architectures())
        self.assertEqual(loom.load_architecture("v100").kind, "gpu")
        self.assertEqual(loom.load_architecture("eyeriss_like_rs").kind, "hierarchy")
        self.assertEqual(loom.load_architecture().name, "systolic_128x128_ws")

    def test_network_layers_are_dicts_whose_macs_add_up(self):
        net = loom.load_workload("alexnet")
        layers = net.layers()
        self.assertEqual(len(layers), len(net))
        self.assertEqual(sum(l["macs"] for l in layers), net.macs)
        conv1 = layers[0]
        g = conv1["gemm_view"]
        self.assertEqual(g["m"] * g["n"] * g["k"] * g["groups"], conv1["macs"])
        self.assertEqual(conv1["elements"]["ofmap"],
                         conv1["batch"] * conv1["conv"]["out_channels"] * conv1["conv"]["out_h"] * conv1["conv"]["out_w"])
        two = net.subset([layers[2]["name"], layers[0]["name"]])
        self.assertEqual(two.layer_names(), [layers[2]["name"], layers[0]["name"]])
        self.assertEqual(loom.load_workload().name, loom.load_workload("resnet50").name)


class SameAsTheCli(unittest.TestCase):
    def test_run_writes_the_files_loom_run_writes(self):
        with tempfile.TemporaryDirectory() as d:
            arch, net = "configs/systolic_32x32_os.json", "workloads/networks/lenet5.json"
            cwd = os.getcwd()
            os.chdir(ROOT)
            try:
                report = loom.run(arch, net, out=Path(d) / "py")
            finally:
                os.chdir(cwd)
            r = cli("run", "--arch", arch, "--workload", net, "--out", str(Path(d) / "cli"), "-q")
            self.assertEqual(r.returncode, 0, r.stderr)
            for name in ("report.json", "layers.csv", "resolved_config.json", "report.html"):
                self.assertTrue(filecmp.cmp(Path(d) / "py" / name, Path(d) / "cli" / name, shallow=False), name)
            with open(Path(d) / "cli" / "report.json") as f:
                self.assertEqual(dict(report), json.load(f))
        self.assertEqual(report.summary.totals["cycles"], sum(l["cycles"] for l in report.summary.layers))
        frame = report.layers_frame()
        self.assertEqual(list(frame["name"]), [l["name"] for l in report.summary.layers])
        self.assertIn("energy_pj.dram", frame.columns)

    def test_map_layer_finds_the_mapping_loom_map_finds(self):
        with tempfile.TemporaryDirectory() as d:
            mapped = loom.map_layer("eyeriss_12x14", "conv3", "alexnet", objective="energy", budget=300, seed=3)
            r = cli("map", "--arch", "configs/eyeriss_12x14.json", "--workload", "workloads/networks/alexnet.json",
                    "--layer", "conv3", "--objective", "energy", "--budget", "300", "--seed", "3", "--out", d, "-q")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(Path(d) / "map_report.json") as f:
                expected = json.load(f)
        for key in ("mapping", "cost", "loop_nest", "problem"):
            self.assertEqual(mapped[key], expected[key], key)
        self.assertEqual(mapped["search"]["evaluated"], expected["search"]["evaluated"])

    def test_evaluate_is_the_run_summary_at_cycle_level_and_close_analytically(self):
        run = loom.run("systolic_32x32_ws", "alexnet").summary
        cycle = loom.evaluate("systolic_32x32_ws", "alexnet", fidelity="cycle")
        analytic = loom.evaluate("systolic_32x32_ws", "alexnet", fidelity="analytic")
        self.assertEqual(cycle.totals["cycles"], run.totals["cycles"])
        self.assertLess(abs(analytic.totals["cycles"] / run.totals["cycles"] - 1), 0.02)
        self.assertEqual(analytic["fidelity"], "analytic")

    def test_gpu_kernel_runs_and_checks_a_shipped_kernel(self):
        report = loom.gpu_kernel("v100", "tiled_gemm", {"M": 64, "N": 32, "K": 48})
        self.assertTrue(report["verification"]["ok"], report["verification"])
        self.assertEqual(report["sizes"], {"M": 64, "N": 32, "K": 48})
        r = cli("gpu", "--arch", "configs/v100.json", "--kernel", "tiled_gemm", "--size", "M=64,N=32,K=48",
                "--out", tempfile.mkdtemp(), "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"{report['cycles']:,} cycles".replace(",", ""), r.stdout.replace(",", ""))
        names = [k["name"] for k in loom.kernels()]
        self.assertIn("wmma_gemm", names)
        written = loom.gpu_kernel("v100", "tiled_gemm", {"M": 64, "N": 32, "K": 48}, issue_order="written")
        self.assertEqual(written["issue_order"], "written")
        self.assertEqual(written["instructions"]["warp"], report["instructions"]["warp"])
        with self.assertRaises(loom.InputError):
            loom.gpu_kernel("v100", "tiled_gemm", {"M": 64}, issue_order="random")
        ahead = loom.gpu_kernel("v100", "wmma_gemm", {"M": 64, "N": 32, "K": 48})
        at_issue = loom.gpu_kernel("v100", "wmma_gemm", {"M": 64, "N": 32, "K": 48}, execute_at_issue=True)
        self.assertEqual((ahead["execution"], at_issue["execution"]), ("run_ahead", "at_issue"))
        self.assertEqual(ahead["cycles"], at_issue["cycles"])

    def test_one_process_runs_a_systolic_array_then_a_gpu_then_the_array_again(self):
        first = loom.run("systolic_32x32_ws", "lenet5").summary.totals["cycles"]
        loom.gpu_kernel("v100", "relu_add", {"n": 4096})
        self.assertEqual(loom.run("systolic_32x32_ws", "lenet5").summary.totals["cycles"], first)


class Errors(unittest.TestCase):
    def assert_same_error(self, call, *cli_args):
        with self.assertRaises(loom.InputError) as raised:
            call()
        self.assertEqual(str(raised.exception), cli_error(*cli_args))
        return raised.exception

    def test_a_missing_file_names_it(self):
        e = self.assert_same_error(lambda: loom.run("no/such/arch.json", "lenet5"),
                                   "run", "--arch", "no/such/arch.json")
        self.assertEqual(e.file, "no/such/arch.json")

    def test_mapper_options_on_a_systolic_array_are_refused_like_the_cli(self):
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            e = self.assert_same_error(
                lambda: loom.run("configs/systolic_32x32_ws.json", "workloads/networks/lenet5.json", objective="latency"),
                "run", "--arch", "configs/systolic_32x32_ws.json", "--workload", "workloads/networks/lenet5.json",
                "--objective", "latency")
        finally:
            os.chdir(cwd)
        self.assertEqual(e.field, "--objective")

    def test_unknown_keys_and_bad_values_name_the_field(self):
        with open(ROOT / "configs" / "systolic_32x32_ws.json") as f:
            raw = json.load(f)
        raw["array"]["colour"] = "red"
        with self.assertRaises(loom.InputError) as raised:
            loom.load_architecture(raw)
        self.assertEqual(raised.exception.file, "<dict>")
        self.assertIn("colour", raised.exception.field)
        with self.assertRaises(loom.InputError):
            loom.evaluate(fidelity="fast")
        with self.assertRaises(loom.InputError) as raised:
            loom.load_workload("lenet5").subset(["C9"])
        self.assertIn("C9", str(raised.exception))
        with self.assertRaises(loom.InputError):
            loom.map_layer("v100", "conv1", "alexnet")  # a GPU has no mapper view
        self.assertTrue(issubclass(loom.InputError, ValueError))


class Sweeps(unittest.TestCase):
    def test_forked_workers_dask_and_the_cli_write_identical_results(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            spec = write_spec(d)
            one = loom.sweep(spec, d / "j1", jobs=1)
            two = loom.sweep(spec, d / "j2", jobs=2)
            r = cli("sweep", str(spec), "--out", str(d / "cli"), "-q")
            self.assertEqual(r.returncode, 0, r.stderr)
            import warnings
            from distributed import Client, LocalCluster
            warnings.filterwarnings("ignore", category=DeprecationWarning)  # tornado's, inside distributed
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                    Client(cluster) as client:
                dask = loom.sweep(spec, d / "dask", client=client)
            for other in ("j2", "cli", "dask"):
                for name in ("points.jsonl", "points.csv", "pareto.json"):
                    self.assertTrue(filecmp.cmp(d / "j1" / name, d / other / name, shallow=False), (other, name))
            self.assertEqual(len(one.points), 12)
            self.assertEqual(one.outcome["done"], 12)
            self.assertEqual(dask.outcome["done"], 12)
            self.assertEqual(len(two.front), len(one.front))
            frame = one.points_frame()
            self.assertEqual(len(frame), 12)
            self.assertIn("metrics.latency_s", frame.columns)
            best = one.best("latency_s", area_mm2=2.0)
            self.assertLessEqual(best["metrics"]["area_mm2"], 2.0)
            self.assertTrue(all(p["metrics"]["latency_s"] >= best["metrics"]["latency_s"]
                                for p in one.feasible() if p["metrics"]["area_mm2"] <= 2.0))
            self.assertEqual(len(loom.load_sweep(d / "j1").points), 12)

    def test_interrupting_keeps_finished_points_and_resume_completes_them(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            # Cycle-level points of VGG-16 on tiny arrays take long enough (seconds) to
            # interrupt mid-sweep.
            spec = write_spec(d, workloads=[str(ROOT / "workloads" / "networks" / "vgg16.json")],
                              parameters={"array.rows": [4, 8], "array.cols": [4, 8],
                                          "array.dataflow": ["ws", "is", "os"]},
                              fidelity={"search": "cycle", "pareto": "none"})
            timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
            timer.start()
            with self.assertRaises(KeyboardInterrupt) as raised:
                loom.sweep(spec, d / "out", jobs=2)
            timer.cancel()
            self.assertIn("resume", str(raised.exception))
            with open(d / "out" / "sweep.json") as f:
                self.assertFalse(json.load(f)["complete"])
            kept = len((d / "out" / "points.jsonl").read_text().splitlines())
            self.assertLess(kept, 12)
            resumed = loom.sweep(spec, d / "out", jobs=2, resume=True)
            self.assertEqual(resumed.outcome["done"], 12)
            self.assertTrue(resumed.manifest["complete"])
            # Python's own Ctrl-C handling is back after the sweep.
            self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)

    def test_a_spec_no_point_can_meet_is_an_input_error(self):
        with tempfile.TemporaryDirectory() as d:
            spec = write_spec(Path(d), constraints={"area_mm2": {"max": 0.001}})
            with self.assertRaises(loom.InputError) as raised:
                loom.sweep(spec, Path(d) / "out")
            self.assertEqual(str(raised.exception), cli_error("sweep", str(spec), "--out", str(Path(d) / "cli")))


if __name__ == "__main__":
    unittest.main()
