"""loom.train: the same estimate and files as `loom train`, errors in the CLI's words."""

import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import loom

ROOT = Path(__file__).resolve().parents[2]
LOOM = os.environ.get("LOOM_BINARY", str(ROOT / "build" / "loom"))


class TrainTest(unittest.TestCase):
    def test_same_report_as_the_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            report = loom.train("dgx1_v100", "resnet50", batch=256, out=Path(tmp) / "py")
            subprocess.run([LOOM, "train", "--system", str(loom.SOURCE_DIR / "configs/systems/dgx1_v100.json"),
                            "--workload", str(loom.SOURCE_DIR / "workloads/networks/resnet50.json"),
                            "--batch", "256", "--out", str(Path(tmp) / "cli"), "-q"],
                           check=True, capture_output=True)
            for name in ("report.json", "kernels.csv", "timeline.csv", "report.html"):
                self.assertEqual((Path(tmp) / "py" / name).read_bytes(), (Path(tmp) / "cli" / name).read_bytes(), name)
            on_disk = json.loads((Path(tmp) / "cli" / "report.json").read_text())
            self.assertEqual(report["samples_per_second"], on_disk["samples_per_second"])
        self.assertEqual(report["devices"], 8)
        self.assertGreater(len(report.kernels_frame()), 100)
        self.assertIn("gpu0", set(report.memory_frame()["device"]))

    def test_options_and_shipped_names(self):
        self.assertIn("dgx1_v100", loom.shipped_systems())
        self.assertNotIn("links", loom.shipped_systems())
        fused = loom.train(arch="v100", workload="lenet5", batch=8, fuse=True, effects=False)
        plain = loom.train(arch="v100", workload="lenet5", batch=8, effects=False)
        self.assertLess(fused["step_seconds"], plain["step_seconds"])
        self.assertEqual(fused["effects"], [])

    def test_errors_name_the_option(self):
        with self.assertRaises(loom.InputError) as caught:
            loom.train("dgx1_v100", batch=250)
        self.assertIn("250 is not a multiple of 8", str(caught.exception))
        with self.assertRaises(loom.InputError) as caught:
            loom.train("dgx1_v100", batch=256, paralel="tensor")
        self.assertIn("paralel", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
