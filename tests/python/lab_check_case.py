"""What every lab's check tests share: the labs' folder on sys.path (for `lab_checks`), and
one assertion that a check accepts its solution and rejects a wrong answer and None."""

import contextlib
import io
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))


def quietly(check, answer):
    """A check's verdict without the line it prints for the student."""
    with contextlib.redirect_stdout(io.StringIO()):
        return check(answer)


class LabCheckCase(unittest.TestCase):
    def assert_check(self, check, solution, wrong):
        self.assertIs(quietly(check, solution), True)
        self.assertIs(quietly(check, wrong), False)
        self.assertIs(quietly(check, None), False)
