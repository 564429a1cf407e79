"""Lab 4's answer checks (notebooks/lab_checks/lab4_data_movement.py): each accepts its
own solution, rejects a clearly wrong answer, and treats None as not answered."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_check_case import LabCheckCase  # noqa: E402
import loom  # noqa: E402
from lab_checks import lab4_data_movement as lab  # noqa: E402


class Lab4Checks(LabCheckCase):
    def test_exercise_1_dram_access_in_macs(self):
        solution = lab.solution_1()
        self.assert_check(lab.check_1, solution, solution / 8)  # per byte instead of per 64-bit word

    def test_exercise_2_dram_energy_share(self):
        solution = lab.solution_2()
        self.assertGreater(solution, 0)
        self.assertLess(solution, 1)
        self.assert_check(lab.check_2, solution, solution * 100)  # a percentage, not a fraction

    def test_exercise_3_parameters(self):
        solution = lab.solution_3()
        weights = sum(l["elements"]["filter"] for l in loom.load_workload("alexnet").layers())
        self.assertGreater(solution, weights)  # biases are counted too
        self.assert_check(lab.check_3, solution, weights // 2)

    def test_exercise_4_training_memory(self):
        solution = lab.solution_4()
        self.assert_check(lab.check_4, solution, solution * lab.GIB / 1e9)  # GB instead of GiB

    def test_kept_activations_scale_with_batch(self):
        one = lab.kept_activations(lab.with_batch("alexnet", 1))
        self.assertEqual(lab.kept_activations(lab.with_batch("alexnet", 128)), 128 * one)


if __name__ == "__main__":
    unittest.main()
