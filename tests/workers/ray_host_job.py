"""A job run as ``cardtable serve`` runs one on a cluster: Ray joined first (``RayHost``, before any job is known),
the job's policy code then given to its tasks (tests/workers/test_other_rays.py).

    python ray_host_job.py ADDRESS REDIS_URL KEY_PREFIX SPEC_JSON    # prints the job's record as JSON
"""

from __future__ import annotations

import json
import sys

import redis

from workers.jobstore import JobStore
from workers.ray_head import RayHost
from workers.runner import run_job
from workers.spec import JobSpec


def main(address: str, redis_url: str, prefix: str, spec_json: str) -> None:
    host = RayHost(address)
    host.connect()
    try:
        store = JobStore(redis.Redis.from_url(redis_url), prefix)
        record = run_job(store, store.create(JobSpec.from_dict(json.loads(spec_json))).job_id, redis_url)
        print(json.dumps({"state": record.state, "error": record.error, "results": record.results}))
    finally:
        host.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
