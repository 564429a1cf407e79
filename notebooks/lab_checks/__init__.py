"""Answer checks for the labs. Each lab has a module here (lab1_roofline.py, ...) with one
`check_<exercise>(answer)` per exercise and the `solution_<exercise>()` it compares with,
computed from loom (never typed in). tests/python/test_lab*_checks.py prove every check
accepts its solution and rejects a wrong answer."""
