"""Lab 6's answer checks (notebooks/lab_checks/lab6_dse.py): each accepts its own
solution, rejects a clearly wrong answer, and treats None as not answered."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_check_case import LabCheckCase, quietly  # noqa: E402
from lab_checks import lab6_dse as lab  # noqa: E402


class Lab6Checks(LabCheckCase):
    def test_the_sweep_ran_complete(self):
        result = lab.sweep_result()
        self.assertTrue(result.manifest["complete"])
        self.assertEqual(len(result.points), result.manifest["design_space_points"])
        self.assertGreater(lab.area_budget(), lab.EXERCISE_1_BUDGET_MM2)

    def test_exercise_1_fastest_under_2_mm2(self):
        solution = lab.solution_1()
        point = lab.sweep_result().best("latency_s", area_mm2=lab.EXERCISE_1_BUDGET_MM2)
        self.assertLessEqual(point["metrics"]["area_mm2"], lab.EXERCISE_1_BUDGET_MM2)
        self.assert_check(lab.check_1, solution, [16, 16, "ws"] if solution != [16, 16, "ws"] else [16, 16, "os"])
        self.assertIs(quietly(lab.check_1, solution[:2]), False)

    def test_exercise_2_ws_penalty(self):
        solution = lab.solution_2()
        self.assertGreaterEqual(solution, 1)
        # The fastest design overall is the one best() picks under the spec's budget.
        chosen = lab.sweep_result().best("latency_s", area_mm2=lab.area_budget())
        self.assertEqual(chosen["index"], lab.fastest()["index"])
        self.assert_check(lab.check_2, solution, 1 / solution)

    def test_exercise_3_knee_area(self):
        solution = lab.solution_3()
        limit = (1 + lab.EXERCISE_3_SLACK) * lab.fastest()["metrics"]["latency_s"]
        self.assertEqual(solution, lab.sweep_result().best("area_mm2", latency_s=limit)["metrics"]["area_mm2"])
        self.assertLessEqual(solution, lab.fastest()["metrics"]["area_mm2"])
        self.assert_check(lab.check_3, solution, lab.fastest()["metrics"]["area_mm2"] * 1.5)


if __name__ == "__main__":
    unittest.main()
