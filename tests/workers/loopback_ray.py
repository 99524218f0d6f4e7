"""``ray``, the command, for a Ray cluster on this machine's loopback alone (tests/workers/test_cluster.py):
``python loopback_ray.py start --head --node-ip-address=127.0.0.1 ...``, ``... status --address=127.0.0.1:PORT``.

Ray does not keep a 127.0.0.1 it is given (for the node, for the address to join): it takes this machine's outward
address instead (``ray._private.services.resolve_ip_for_localhost``), and its processes then listen on every
interface. Here it keeps it. (``workers.cluster.loopback_node``'s way, a machine taken for a single node, would do for
a head but refuses to start a second node.)"""

from __future__ import annotations

import sys


def main() -> int:
    from ray._private import services
    from ray.scripts.scripts import main as ray

    resolve = services.resolve_ip_for_localhost
    services.resolve_ip_for_localhost = lambda host: host if services.is_localhost(host) else resolve(host)
    return ray()


if __name__ == "__main__":
    sys.exit(main())
