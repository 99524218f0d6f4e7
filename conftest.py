"""Collection for the whole tree: the suite in tests/ and, through --doctest-modules, every module's examples."""

import sys
from pathlib import Path

# tests/tiers.py: the tiers (unit, integration, e2e) of every test of the tree, doctests included; imported under the
# name the suite's own imports give it (tests/ on the path, as pytest puts it for tests/conftest.py)
sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
pytest_plugins = ["tiers"]

collect_ignore = ["services/generated"]  # protoc output, built by services/protogen.py: no examples of ours


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Conftest files are loaded as conftests, never collected again for doctests: pytest imports every one under the
    module name ``conftest``, so a second one collected as a module clashes with the first ("import file mismatch"
    when test folders are given out of order)."""
    return True if collection_path.name == "conftest.py" else None



def pytest_report_header() -> str:
    """Which engine the run tests: compiled (build_engine.py) or its Python source (engine/_native.py)."""
    import engine

    report = engine.engine_report()
    from_source = report.get("engine_from_source")
    return f"engine: {report['engine']}" + (f" ({', '.join(from_source)} from source)" if from_source else "")
