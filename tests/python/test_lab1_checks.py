"""Lab 1's answer checks (notebooks/lab_checks/lab1_roofline.py): each accepts its own
solution, rejects a clearly wrong answer, and treats None as not answered."""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_check_case import LabCheckCase  # noqa: E402
import loom  # noqa: E402
from lab_checks import lab1_roofline as lab  # noqa: E402


class Lab1Checks(LabCheckCase):
    def test_exercise_1_fp32_ridge(self):
        solution = lab.solution_1()
        self.assert_check(lab.check_1, solution, solution * 8)  # the fp16 tensor ridge is 8x higher

    def test_exercise_2_attainable_fc6(self):
        solution = lab.solution_2()
        self.assert_check(lab.check_2, solution, solution * 1e12)  # FLOP/s instead of TFLOP/s
        # The roofline formula the lab teaches is the one loom reports.
        layer = loom.evaluate("v100", "alexnet", layers=["fc6"])["layers"][0]
        self.assertTrue(math.isclose(solution * 1e12, layer["roofline"]["attainable_flops_per_second"],
                                     rel_tol=1e-9))

    def test_exercise_3_batch_to_ridge(self):
        solution = lab.solution_3()
        self.assertIsInstance(solution, int)
        self.assert_check(lab.check_3, solution, solution - 1)
        fc7 = next(l for l in loom.load_workload("alexnet").layers() if l["name"] == "fc7")
        k, n = fc7["gemm_view"]["k"], fc7["gemm_view"]["n"]
        ridge = lab.ridge_point()
        self.assertGreaterEqual(lab.compulsory_intensity(lab._fc_network(k, n, solution).layers()[0]), ridge)
        self.assertLess(lab.compulsory_intensity(lab._fc_network(k, n, solution - 1).layers()[0]), ridge)

    def test_ridge_point_is_peak_over_dram_bandwidth(self):
        roofs = loom.roofs("v100")
        peak = max(r["flops_per_second"] for r in roofs["compute_roofs"])
        dram = next(r["bytes_per_second"] for r in roofs["bandwidth_roofs"] if r["level"] == "dram")
        self.assertAlmostEqual(lab.ridge_point(), peak / dram)


if __name__ == "__main__":
    unittest.main()
