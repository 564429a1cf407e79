"""bench/ab.py, on stand-in benchmark executables that print loom_bench's result line with
rates the test chooses: the ratios and the summary, the warning for builds that simulate
different things, and the errors for bad input."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AB = os.path.join(ROOT, "bench", "ab.py")


def fake_bench(directory, name, rate, cycles=163369, exit_code=0):
    """An executable that answers `gpu ...` as loom_bench does, at `rate` warp instructions/s."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
        f.write('echo "SIMT model on V100-SXM2-16GB with 80 SMs, GEMM 1024^3, best of 1 (one core)"\n')
        f.write('echo "kernel        warp_instr       cycles    wall_s   warp_instr/s"\n')
        f.write(f'echo "wmma_gemm        3342336       {cycles}     1.000      {rate:.3e}      1.6e+05"\n')
        if exit_code:
            f.write(f'echo "loom_bench: error: something broke" >&2\nexit {exit_code}\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def run_ab(*args):
    return subprocess.run([sys.executable, AB, *args], capture_output=True, text=True)


class BenchAbTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def test_ratios_and_summary(self):
        old = fake_bench(self.dir.name, "old", 4.0e6)
        new = fake_bench(self.dir.name, "new", 4.4e6)
        r = run_ab(old, new, "--pairs", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        pairs = [line for line in r.stdout.splitlines() if len(line.split()) == 4 and line.split()[0].isdigit()]
        self.assertEqual(len(pairs), 3)
        for line in pairs:
            self.assertTrue(line.rstrip().endswith("1.100"), line)
        self.assertIn("3 pairs: NEW/OLD mean +10.0%, median +10.0%", r.stdout)
        self.assertIn("NEW faster in 3", r.stdout)
        self.assertNotIn("results differ", r.stdout)

    def test_a_build_directory_stands_for_its_loom_bench(self):
        build = os.path.join(self.dir.name, "build")
        os.mkdir(build)
        fake_bench(build, "loom_bench", 5.0e6)
        old = fake_bench(self.dir.name, "old", 4.0e6)
        r = run_ab(old, build, "--pairs", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("mean +25.0%", r.stdout)

    def test_a_bare_file_name_is_the_file_in_the_working_directory(self):
        fake_bench(self.dir.name, "old", 4.0e6)
        fake_bench(self.dir.name, "new", 2.0e6)
        r = subprocess.run([sys.executable, AB, "old", "new", "--pairs", "1"], capture_output=True, text=True,
                           cwd=self.dir.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("mean -50.0%", r.stdout)

    def test_builds_that_simulate_different_cycles_are_flagged(self):
        old = fake_bench(self.dir.name, "old", 4.0e6, cycles=163369)
        new = fake_bench(self.dir.name, "new", 4.0e6, cycles=163124)
        r = run_ab(old, new, "--pairs", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("results differ: OLD 3342336 warp instructions in 163369 cycles, "
                                        "NEW 3342336 in 163124"), 2)

    def test_bad_input_is_a_clear_error(self):
        old = fake_bench(self.dir.name, "old", 4.0e6)
        missing = os.path.join(self.dir.name, "nothing_here")
        r = run_ab(old, missing)
        self.assertEqual(r.returncode, 2)
        self.assertIn(missing, r.stderr)
        self.assertIn("expected a loom_bench executable or a build directory", r.stderr)
        r = run_ab(old, old, "--pairs", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--pairs: expected at least 1, got 0", r.stderr)
        r = run_ab(old, old, "--size", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--size", r.stderr)

    def test_input_the_benchmark_refuses_is_an_input_error(self):
        old = fake_bench(self.dir.name, "old", 4.0e6)
        refusing = fake_bench(self.dir.name, "refusing", 4.0e6, exit_code=2)
        r = run_ab(old, refusing, "--size", "100")
        self.assertEqual(r.returncode, 2)
        self.assertIn("exited with 2", r.stderr)
        self.assertIn("--size 100", r.stderr)

    def test_a_failing_run_stops_with_its_message_and_the_pairs_so_far(self):
        old = fake_bench(self.dir.name, "old", 4.0e6)
        broken = fake_bench(self.dir.name, "broken", 4.0e6, exit_code=3)
        r = run_ab(old, broken, "--pairs", "2")
        self.assertEqual(r.returncode, 1)
        self.assertIn("exited with 3", r.stderr)
        self.assertIn("something broke", r.stderr)
        self.assertIn("no pair finished", r.stdout)


if __name__ == "__main__":
    unittest.main()
