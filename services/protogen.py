"""Generate the Python gRPC stubs of ``protos/`` into the git-ignored ``services/generated/``.

The stubs are built, never edited or committed. ``grpc_tools.protoc`` writes ``from cardtable.v1 import ...``;
the imports are rewritten so the stubs live under the ``services.generated`` package:

    python -m services.protogen            # regenerate when a .proto is newer than the stubs
    python -m services.protogen --force    # regenerate anyway

>>> from services.generated.cardtable.v1 import game_service_pb2
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
OUT = ROOT / "services" / "generated"
STAMP = OUT / ".generated"
PACKAGE = "services.generated"

_IMPORT = re.compile(r"^from cardtable\.(\S+) import ", re.MULTILINE)


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.rglob("*.proto"))


def is_stale() -> bool:
    """True when the stubs are missing or older than a .proto file."""
    if not STAMP.exists():
        return True
    built = STAMP.stat().st_mtime
    return any(p.stat().st_mtime > built for p in proto_files()) or Path(__file__).stat().st_mtime > built


def generate() -> list[Path]:
    """Run protoc on every .proto file; returns the generated Python files.

    The stubs are built in a fresh folder and swapped in, so a test run or a server starting at the same moment in
    another process never imports half-written stubs.
    """
    from grpc_tools import protoc  # build-time dependency only

    building = OUT.with_name(f"{OUT.name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    well_known = resources.files("grpc_tools") / "_proto"
    sources = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    args = ["protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={building}", f"--pyi_out={building}",
            f"--grpc_python_out={building}", *sources]
    if protoc.main(args) != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise RuntimeError(f"protoc failed on {sources}")
    for path in [*building.rglob("*.py"), *building.rglob("*.pyi")]:
        path.write_text(_IMPORT.sub(rf"from {PACKAGE}.cardtable.\1 import ", path.read_text()))
    for folder in [building, *(d for d in building.rglob("*") if d.is_dir())]:
        (folder / "__init__.py").touch()
    (building / STAMP.name).touch()
    retired = OUT.with_name(f"{OUT.name}.old-{os.getpid()}")
    try:
        if OUT.exists():
            OUT.rename(retired)
        building.rename(OUT)
    except OSError:
        if not STAMP.exists():  # not a concurrent build that got there first
            raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
        shutil.rmtree(retired, ignore_errors=True)
    return sorted(OUT.rglob("*.py")) + sorted(OUT.rglob("*.pyi"))


def ensure_generated() -> None:
    """Generate the stubs if they are missing or stale (a fresh clone, an edited .proto)."""
    if is_stale():
        generate()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--force" in argv or is_stale():
        files = generate()
        print(f"generated {len(files)} files in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
