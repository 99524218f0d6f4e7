"""The gRPC load benchmark runs end to end (briefly): a server process, clients playing through Act, figures out."""

from __future__ import annotations

import json

from services.bench.grpc import percentile, run_grpc_bench
from services.cli.main import cli


def test_percentiles():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 51.0 and percentile(values, 0.99) == 100.0 and percentile([3.0], 0.99) == 3.0


def test_a_short_load_run(grpc_redis_url):
    result = run_grpc_bench(seconds=1.0, clients=4, redis_url=grpc_redis_url)
    assert result["errors"] == 0 and result["act_calls"] > 0 and result["clients"] == 4
    assert 0 < result["act_p50_ms"] <= result["act_p99_ms"] <= result["act_max_ms"]
    assert result["act_per_s"] > 0 and result["cpu_us_per_act"]["server"] == result["server_cpu_us_per_act"] > 0
    assert result["grpc_floor_calls"] > 0 and result["grpc_floor_server_cpu_us_per_call"] > 0


def test_bench_grpc_from_the_command_line(cli_runner, grpc_redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", grpc_redis_url)
    run = cli_runner.invoke(cli, ["bench", "--grpc", "--seconds", "0.5", "--clients", "3", "--workers", "2", "--json"])
    assert run.exit_code == 0, run.output
    result = json.loads(run.output)
    assert result["errors"] == 0 and (result["clients"], result["server_workers"]) == (3, 2)
    assert cli_runner.invoke(cli, ["bench"]).exit_code == 2  # --game is required without --grpc
