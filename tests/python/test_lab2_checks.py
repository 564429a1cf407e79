"""Lab 2's answer checks (notebooks/lab_checks/lab2_dataflows.py): each accepts its own
solution, rejects a clearly wrong answer, and treats None as not answered."""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_check_case import LabCheckCase, quietly  # noqa: E402
from lab_checks import lab2_dataflows as lab  # noqa: E402


class Lab2Checks(LabCheckCase):
    def test_exercise_1_folds(self):
        solution = lab.solution_1()
        self.assertEqual(len(solution), 3)
        # The fold rules of docs/systolic-conventions.md on M = 49, N = 512, K = 4608, 32x32.
        m, n, k = 49, 512, 4608
        self.assertEqual(solution, [math.ceil(k / 32) * math.ceil(n / 32), math.ceil(k / 32) * math.ceil(m / 32),
                                    math.ceil(m / 32) * math.ceil(n / 32)])
        self.assert_check(lab.check_1, solution, list(reversed(solution)))
        self.assertIs(quietly(lab.check_1, solution[:2]), False)

    def test_exercise_2_fc6_compute_cycles(self):
        solution = lab.solution_2()
        folds = math.ceil(9216 / 32) * math.ceil(4096 / 32)
        self.assertEqual(solution, folds * (32 + 1 + 32 + 32 - 2))  # r + T + R + c - 2, T = M = 1
        self.assert_check(lab.check_2, solution, folds * 32)  # the preload alone

    def test_exercise_3_conv1_spill_ratio(self):
        solution = lab.solution_3()
        self.assertEqual(solution, math.ceil(363 / 32))  # one write per K fold
        self.assert_check(lab.check_3, solution, 1.0)  # no spill

    def test_exercise_4_largest_batch_without_spill(self):
        solution = lab.solution_4()
        self.assertFalse(lab.spills_partial_sums(solution))
        self.assertTrue(lab.spills_partial_sums(solution + 1))
        self.assert_check(lab.check_4, solution, 2 * solution)


if __name__ == "__main__":
    unittest.main()
