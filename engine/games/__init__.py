"""One module per game; importing this package registers them all."""

from . import tablanette, tablic  # noqa: F401
