"""Reading candidate patches before they run (core/candidates/diffscan.py, unidiff + detect-secrets)."""

from passgate.core.candidates.diffscan import scan_patch

CODE = "--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
TEST = "--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1 @@\n-assert f() == 3\n+assert True\n"
CONFTEST = ("--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,2 @@\n+def pytest_runtest_makereport(item, call):\n"
            "+    pass\n")
DEPS = "--- /dev/null\n+++ b/requirements.txt\n@@ -0,0 +1 @@\n+requests==2.32.3\n"
SECRET = ('--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,2 +1,3 @@\n a = 1\n b = 2\n'
          '+TOKEN = "ghp_Zq7RkT2mWb9XcV4nLs8PdF3hJy6GtA1uEoKi"\n')


def test_figures_and_refused_test_hunks():
    scan = scan_patch(CODE + TEST + CONFTEST)
    assert (scan.files_changed, scan.lines_added, scan.lines_removed, scan.hunks) == (3, 4, 2, 3)
    assert scan.reviewer_burden == 9
    assert scan.test_files == ["tests/test_x.py"] and scan.test_config == ["conftest.py"]
    assert scan.refused == ["tests/test_x.py", "conftest.py"]
    assert scan.graded_patch == CODE


def test_flag_mode_keeps_the_test_hunks():
    scan = scan_patch(CODE + TEST, refuse_test_edits=False)
    assert scan.refused == [] and scan.graded_patch == CODE + TEST and scan.test_files == ["tests/test_x.py"]


def test_dependency_files_and_secrets():
    scan = scan_patch(DEPS + SECRET)
    assert scan.dependency_files == ["requirements.txt"]
    assert [(f["path"], f["line"]) for f in scan.secrets] == [("pkg/x.py", 3)]
    assert "GitHub Token" in scan.secrets[0]["types"]
    assert scan_patch(CODE).secrets == []


def test_not_a_diff_is_recorded_not_raised():
    scan = scan_patch("I fixed it, trust me\n")
    assert scan.parse_error and scan.files_changed == 0
