"""Structured logs: one JSON object per line on stderr, with the standard ``logging`` module.

Fields passed as ``extra`` become keys of the object:

    log.info("match created", extra={"match_id": "a1b2", "game": "tablanette"})
    # {"ts": "2026-11-29T13:40:00.123Z", "level": "info", "logger": "cardtable.matches", "msg": "match created",
    #  "match_id": "a1b2", "game": "tablanette"}
"""

from __future__ import annotations

import json
import logging
import sys
import time

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


def configure_logging(level: str = "info") -> None:
    """Send the ``cardtable`` loggers to stderr as JSON lines (idempotent)."""
    logger = logging.getLogger("cardtable")
    logger.setLevel(level.upper())
    if not any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.propagate = False
