"""Simulation jobs on Ray: specs, chunk plans, the chunk task, statistics, the driver.

Ray reads some of its settings from the environment when it is imported, so cardtable's defaults are set here,
before any module of this package imports Ray (a value already in the environment wins):

- ``RAY_USAGE_STATS_ENABLED=0``: send no usage statistics anywhere;
- ``RAY_DISABLE_FAILURE_SIGNAL_HANDLER=1``: a driver process (the server, ``cardtable simulate``) that gets SIGTERM
  stops as it means to, without Ray printing a native stack dump first.
"""

import os

for _name, _value in {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_FAILURE_SIGNAL_HANDLER": "1"}.items():
    os.environ.setdefault(_name, _value)
