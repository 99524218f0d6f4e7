"""Structured logs: one JSON object per line on stderr, with the standard ``logging`` module.

Fields passed as ``extra`` become keys of the object:

    log.info("match created", extra={"match_id": "a1b2", "game": "tablanette"})
    # {"ts": "2026-11-29T13:40:00.123Z", "level": "info", "logger": "cardtable.matches", "msg": "match created",
    #  "match_id": "a1b2", "game": "tablanette"}

Python's warnings (a compiled engine module running from its edited source, say) are log lines too: a server's
stderr is its log, and a plain line there is one that no reader of the log parses.
"""

from __future__ import annotations

import atexit
import importlib
import json
import logging
import sys
import time
import warnings
from typing import Any, TextIO

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        out = {"ts": ts, "level": record.levelname.lower(), "logger": record.name, "msg": record.getMessage()}
        # Private attributes (a library's record factory adds some, such as Ray's) are not part of the event.
        out.update((k, v) for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_"))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


# A warning's arguments to warnings.showwarning: message, category, filename, lineno (file and line left out).
Shown = tuple[Warning | str, type[Warning], str, int]
_held: list[Shown] | None = None  # warnings kept by hold_warnings until configure_logging (None: not holding)
_show_plainly = warnings.showwarning


def hold_warnings() -> None:
    """Keep Python's warnings from here on until :func:`configure_logging` writes them as JSON lines: a server calls
    this before it imports what may warn (the engine), as its log is not set up yet. Any still held at exit (the
    server never started: ``serve --help``, a bad option) are printed as Python prints them."""
    global _held
    if _held is not None:
        return
    _held = []
    warnings.showwarning = _keep
    atexit.register(_release_plainly)


def _keep(message: Warning | str, category: type[Warning], filename: str, lineno: int,
          file: TextIO | None = None, line: str | None = None) -> None:
    if _held is None:
        _show_plainly(message, category, filename, lineno, file, line)
    else:
        _held.append((message, category, filename, lineno))


def _release_plainly() -> None:
    global _held
    held, _held = _held or [], None
    for shown in held:
        _show_plainly(*shown)


def _log_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
    extra: dict[str, Any] = {"category": category.__name__, "file": filename, "line": lineno}
    logging.getLogger("cardtable.warnings").warning(str(message), extra=extra)


def configure_logging(level: str = "info") -> None:
    """Send the ``cardtable`` loggers to stderr as JSON lines, Python's warnings among them, the held ones first
    (idempotent)."""
    global _held
    logger = logging.getLogger("cardtable")
    logger.setLevel(level.upper())
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.propagate = False
    warnings.showwarning = _log_warning
    held, _held = _held or [], None
    for shown in held:
        _log_warning(*shown)


def logged_process(level: str, start: str, *args: object) -> None:
    """A server's worker process begins (a process pool's ``initializer``): its log set up as the server's, then
    ``start`` (``module:function``) imported and called with ``args``. Named, not passed, so that what its module
    imports (the engine, which may warn) comes after the log is set up."""
    configure_logging(level)
    module, function = start.split(":")
    getattr(importlib.import_module(module), function)(*args)
