"""Lab 5's answer checks (notebooks/lab_checks/lab5_validation.py): each accepts its own
solution, rejects a clearly wrong answer, and treats None as not answered."""

import copy
import json
import math
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_check_case import LabCheckCase  # noqa: E402
import loom  # noqa: E402
from lab_checks import lab5_validation as lab  # noqa: E402


class Lab5Checks(LabCheckCase):
    def test_exercise_1_latency_mape(self):
        solution = lab.solution_1()
        self.assertGreater(solution, 0)
        errors = [abs(m["error"]) for m in lab.validation("v100")["microbenchmarks"] if m["unit"] == "cycles"]
        self.assert_check(lab.check_1, solution, 100 * max(errors))  # the worst probe, not the mean
        self.assertIs(lab.check_1(solution / 100), False)  # a fraction, not a percentage

    def test_exercise_2_l2_bandwidth_per_clock(self):
        solution = lab.solution_2()
        probe = lab.microbenchmark(lab.validation("v100"), "l2_bandwidth")
        uncorrected = 100 * probe["error"]
        self.assertLess(abs(solution), abs(uncorrected))  # the clocks explain part of the error
        self.assert_check(lab.check_2, solution, uncorrected)

    def test_exercise_3_dram_latency_calibration(self):
        solution = lab.solution_3()
        configured = loom.load_architecture("v100").to_dict()["dram"]["latency"]
        self.assert_check(lab.check_3, solution, configured)  # the uncalibrated value
        # The calibrated config really lands the probe on the published figure.
        measured = lab.measurement_file("v100-published")
        probe = next(m for m in measured["microbenchmarks"] if m["name"] == "dram_latency")
        trimmed = copy.deepcopy(measured)
        trimmed["microbenchmarks"], trimmed["figures"] = [probe], []
        config = loom.load_architecture("v100").to_dict()
        config["dram"]["latency"] = solution
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "dram_latency.json"
            path.write_text(json.dumps(trimmed))
            report = loom.validate(config, path, budget_s=5)
        reading = lab.microbenchmark(report, "dram_latency")["simulated"]
        self.assertTrue(math.isclose(reading, probe["value"], rel_tol=0.01), reading)


if __name__ == "__main__":
    unittest.main()
