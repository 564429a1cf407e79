"""Lab 3's answer checks (notebooks/lab_checks/lab3_tensor_cores.py): each accepts its own
solution, rejects a clearly wrong answer, and treats None as not answered."""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_check_case import LabCheckCase  # noqa: E402
import loom  # noqa: E402
from lab_checks import lab3_tensor_cores as lab  # noqa: E402


class Lab3Checks(LabCheckCase):
    def test_exercise_1_a100_tensor_flops_per_clock(self):
        solution = lab.solution_1()
        self.assert_check(lab.check_1, solution, solution * 2)  # two tensor cores per sub-core, as on Volta
        # Times SMs and clock, it is the FP16 tensor roof loom reports for the A100.
        cfg = lab.gpu_config("a100")
        roofs = {r["name"]: r["flops_per_second"] for r in loom.roofs("a100")["compute_roofs"]}
        self.assertTrue(math.isclose(lab.peak_ops_per_second(cfg, solution), roofs["fp16 tensor"], rel_tol=1e-12))

    def test_exercise_2_wmma_speedup(self):
        solution = lab.solution_2()
        self.assertGreater(solution, 1)  # the tensor cores win
        self.assert_check(lab.check_2, solution, 8.0 if solution < 7 else 1.0)  # the ratio of the peaks

    def test_exercise_3_t4_int4_peak(self):
        solution = lab.solution_3()
        self.assert_check(lab.check_3, solution, solution / 4)  # the FP16 peak
        roofs = {r["name"]: r["flops_per_second"] for r in loom.roofs("t4")["compute_roofs"]}
        self.assertTrue(math.isclose(solution * 1e12, roofs["int4 tensor"], rel_tol=1e-12))

    def test_exercise_4_useful_fraction(self):
        solution = lab.solution_4()
        self.assertLess(solution, 1)
        self.assert_check(lab.check_4, solution, 1.0)  # no padding
        self.assertIs(lab.check_4(100 * solution), False)  # a percentage, not a fraction
        m, n, k, macs = lab.padded_gemm(*lab.EXERCISE_4_LAYER)
        self.assertEqual((m % 16, n % 16, k % 16), (0, 0, 0))
        self.assertEqual(macs, math.prod(lab.EXERCISE_4_LAYER))

    def test_tensor_formula_matches_roofs_on_every_gpu(self):
        names = {"f16": "fp16 tensor", "bf16": "bf16 tensor", "tf32": "tf32 tensor",
                 "s8": "int8 tensor", "s4": "int4 tensor", "b1": "b1 tensor"}
        for arch in ("v100", "t4", "a100", "h200"):
            cfg = lab.gpu_config(arch)
            roofs = {r["name"]: r["flops_per_second"] for r in loom.roofs(arch)["compute_roofs"]}
            self.assertTrue(math.isclose(lab.peak_ops_per_second(cfg, lab.fp32_flops_per_clock_per_sm(cfg)),
                                         roofs["fp32"], rel_tol=1e-12), arch)
            for rate, name in names.items():
                peak = lab.peak_ops_per_second(cfg, lab.tensor_ops_per_clock_per_sm(cfg, rate))
                self.assertTrue(math.isclose(peak, roofs.get(name, 0.0), rel_tol=1e-12, abs_tol=1e-3), (arch, rate))


if __name__ == "__main__":
    unittest.main()
