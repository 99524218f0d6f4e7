"""Collection for the whole tree: the suite in tests/ and, through --doctest-modules, every module's examples."""

from pathlib import Path

collect_ignore = ["services/generated"]  # protoc output, built by services/protogen.py: no examples of ours


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Conftest files are loaded as conftests, never collected again for doctests: pytest imports every one under the
    module name ``conftest``, so a second one collected as a module clashes with the first ("import file mismatch"
    when test folders are given out of order)."""
    return True if collection_path.name == "conftest.py" else None
