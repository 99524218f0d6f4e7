"""The deployment files parse and agree with each other and with the project: one image (tagged with the project's
version), the gRPC port, Redis's port, the Ray head's ports, and the Ray and Python versions; and every server they
bind beyond loopback takes an API key from a secret."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import click
import ray
import yaml

from services.cli.exposure import ALLOW_UNAUTHENTICATED, is_loopback

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
IMAGE = f"cardtable:{PROJECT['version']}"
GRPC_PORT = 50051
REDIS_PORT = 6379
RAY_GCS_PORT = 6379
RAY_CLIENT_PORT = 10001


def load(name: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all((DEPLOY / name).read_text()) if doc]


def by_kind(docs: list[dict], kind: str) -> list[dict]:
    return [doc for doc in docs if doc["kind"] == kind]


def containers(pod_template: dict) -> list[dict]:
    return pod_template["spec"]["containers"]


def env_of(container: dict) -> dict[str, str]:
    return {item["name"]: item.get("value") for item in container.get("env", [])}


def test_the_dockerfile_builds_the_service_on_the_projects_python_and_port():
    text = (DEPLOY / "Dockerfile").read_text()
    python = re.search(r"^FROM python:(\d+\.\d+)", text, re.MULTILINE).group(1)
    assert PROJECT["requires-python"] == f">={python}"
    assert re.search(rf"^EXPOSE .*\b{GRPC_PORT}\b", text, re.MULTILINE)
    assert f'"--port", "{GRPC_PORT}"' in text
    assert "services.protogen" in text and "USER cardtable" in text
    pinned = [d for d in PROJECT["dependencies"] if d.startswith("ray==")]
    assert pinned == [f"ray=={ray.__version__}"]


def test_compose_runs_redis_a_ray_head_a_worker_and_the_service_from_one_image():
    compose = load("compose.yaml")[0]
    services = compose["services"]
    assert set(services) == {"redis", "ray-head", "ray-worker", "service", "cli"}
    assert {services[name]["image"] for name in ("ray-head", "ray-worker", "service", "cli")} == {IMAGE}
    assert services["redis"]["image"].startswith("redis:")
    head = services["ray-head"]["command"]
    assert f"--port={RAY_GCS_PORT}" in head and f"--ray-client-server-port={RAY_CLIENT_PORT}" in head
    assert f"--address=ray-head:{RAY_GCS_PORT}" in services["ray-worker"]["command"]
    service = services["service"]
    assert service["ports"] == [f"127.0.0.1:{GRPC_PORT}:{GRPC_PORT}"]  # published on the host's loopback only
    assert service["command"][service["command"].index("--port") + 1] == str(GRPC_PORT)
    env = service["environment"]
    assert env["REDIS_URL"] == f"redis://redis:{REDIS_PORT}"
    assert env["RAY_ADDRESS"] == f"ray://ray-head:{RAY_CLIENT_PORT}"
    assert all(s["environment"]["RAY_USAGE_STATS_ENABLED"] == "0" for n, s in services.items() if n != "redis")


def test_compose_publishes_only_on_the_hosts_loopback():
    for name, service in load("compose.yaml")[0]["services"].items():
        for port in service.get("ports", []):
            assert isinstance(port, str) and port.startswith("127.0.0.1:"), f"{name} publishes {port}"


def test_the_compose_cli_runs_the_command_line_on_the_cluster_as_the_service_does():
    """`docker compose run cli ...` is `cardtable ...` in the image, with the service's Redis, Ray address and Ray
    token (addresses the Ray workers reach as well); `up` leaves it out, and it publishes and serves nothing."""
    services = load("compose.yaml")[0]["services"]
    cli_service, service = services["cli"], services["service"]
    assert cli_service["profiles"] == ["cli"] and "ports" not in cli_service and "command" not in cli_service
    assert "entrypoint" not in cli_service
    assert json.loads(re.search(r"^ENTRYPOINT (.+)$", (DEPLOY / "Dockerfile").read_text(), re.M).group(1)) == [
        "cardtable"]
    env = cli_service["environment"]
    assert "CARDTABLE_API_KEY" not in env  # it serves nothing
    for name in ("REDIS_URL", "RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_USAGE_STATS_ENABLED"):
        assert env[name] == service["environment"][name], name
    assert env["RAY_AUTH_TOKEN"] == services["ray-head"]["environment"]["RAY_AUTH_TOKEN"]
    assert env["RAY_AUTH_MODE"] == services["ray-head"]["environment"]["RAY_AUTH_MODE"] == "token"
    # the addresses name the cluster's own services, as the Ray containers reach them
    assert env["REDIS_URL"] == f"redis://redis:{REDIS_PORT}" and env["RAY_ADDRESS"] == f"ray://ray-head:{RAY_CLIENT_PORT}"
    assert set(cli_service["depends_on"]) == {"redis", "ray-head"}


def documented_cli_runs() -> list[list[str]]:
    """The `cardtable` arguments of every `docker compose ... run ... cli ARGS` in deploy/ (README and compose.yaml),
    up to a redirection."""
    runs = []
    for name in ("README.md", "compose.yaml"):
        for match in re.finditer(r"docker compose -f deploy/compose\.yaml run (?:--rm |-T )*cli ([a-z][^>\n]*)",
                                 (DEPLOY / name).read_text()):
            runs.append(match.group(1).split())
    return runs


def test_the_documented_cli_runs_are_valid_cardtable_commands():
    from services.cli.main import cli

    runs = documented_cli_runs()
    assert len(runs) >= 3 and any(args[0] == "simulate" for args in runs)
    for args in runs:
        with cli.make_context("cardtable", list(args), resilient_parsing=False) as ctx:
            command = cli.get_command(ctx, args[0])
            assert command is not None, args
            sub = command.make_context(args[0], args[1:], parent=ctx)
            if isinstance(command, click.Group):  # `jobs list`: the subcommand's own arguments
                command.get_command(sub, args[1]).make_context(args[1], args[2:], parent=sub)


def test_kubernetes_manifests_agree_on_image_ports_and_addresses():
    redis_docs, ray_docs, service_docs = load("k8s/redis.yaml"), load("k8s/raycluster.yaml"), load("k8s/service.yaml")
    (cluster,) = by_kind(ray_docs, "RayCluster")
    assert cluster["apiVersion"] == "ray.io/v1"
    assert cluster["spec"]["rayVersion"] == ray.__version__
    head = cluster["spec"]["headGroupSpec"]
    assert head["rayStartParams"]["port"] == str(RAY_GCS_PORT)
    head_ports = {p["name"]: p["containerPort"] for p in containers(head["template"])[0]["ports"]}
    assert head_ports == {"gcs": RAY_GCS_PORT, "client": RAY_CLIENT_PORT}
    ray_pods = [head["template"], *(group["template"] for group in cluster["spec"]["workerGroupSpecs"])]
    service_deployment = by_kind(service_docs, "Deployment")[0]
    images = {c["image"] for pod in [*ray_pods, service_deployment["spec"]["template"]] for c in containers(pod)}
    assert images == {IMAGE}

    (app,) = containers(service_deployment["spec"]["template"])
    assert app["ports"] == [{"name": "grpc", "containerPort": GRPC_PORT}]
    assert app["readinessProbe"]["grpc"]["port"] == GRPC_PORT
    (grpc_service,) = by_kind(service_docs, "Service")
    assert grpc_service["spec"]["ports"][0]["port"] == GRPC_PORT
    assert grpc_service["spec"]["ports"][0]["targetPort"] == "grpc"
    assert grpc_service["spec"]["selector"] == service_deployment["spec"]["selector"]["matchLabels"]

    (redis_service,) = by_kind(redis_docs, "Service")
    (redis_deployment,) = by_kind(redis_docs, "Deployment")
    assert redis_service["spec"]["ports"][0]["port"] == REDIS_PORT
    assert containers(redis_deployment["spec"]["template"])[0]["ports"][0]["containerPort"] == REDIS_PORT
    assert redis_service["spec"]["selector"] == redis_deployment["spec"]["selector"]["matchLabels"]

    env = env_of(app)
    assert env["REDIS_URL"] == f"redis://{redis_service['metadata']['name']}:{REDIS_PORT}"
    assert env["RAY_ADDRESS"] == f"ray://{cluster['metadata']['name']}-head-svc:{RAY_CLIENT_PORT}"
    for pod in [*ray_pods, service_deployment["spec"]["template"]]:
        assert env_of(containers(pod)[0])["RAY_USAGE_STATS_ENABLED"] == "0"


def test_both_deployments_leave_the_allowed_policy_modules_to_the_operator_in_one_setting():
    from services.cli.policy_access import ALLOW_POLICIES_ENV

    service = load("compose.yaml")[0]["services"]["service"]
    (app,) = containers(by_kind(load("k8s/service.yaml"), "Deployment")[0]["spec"]["template"])
    # empty: clients name built-in policies and installed entry points only, until the operator lists modules here
    assert service["environment"][ALLOW_POLICIES_ENV] == env_of(app)[ALLOW_POLICIES_ENV] == ""
    assert not any("--allow-policies" in arg for arg in [*service["command"], *app["args"]])


# ---- exposure: a bind beyond loopback has its API key, from a secret -----------------------------------------------

def host_of(args: list[str]) -> str:
    return args[args.index("--host") + 1] if "--host" in args else "127.0.0.1"


def servers() -> list[tuple[str, list[str], dict]]:
    """Every `cardtable serve` or `cardtable web` the deploy files start: (where, its arguments, its environment as
    written: compose's mapping, or Kubernetes' env list keyed by name)."""
    found = []
    for name, service in load("compose.yaml")[0]["services"].items():
        if service["image"] == IMAGE and service.get("command", [None])[0] in ("serve", "web"):
            found.append((f"compose.yaml {name}", service["command"], service.get("environment", {})))
    for doc in by_kind(load("k8s/service.yaml"), "Deployment"):
        for container in containers(doc["spec"]["template"]):
            if container.get("args", [None])[0] in ("serve", "web"):
                env = {item["name"]: item for item in container.get("env", [])}
                found.append((f"k8s/service.yaml {container['name']}", container["args"], env))
    return found


def key_from_a_secret(args: list[str], env: dict) -> bool:
    """The key comes from a Kubernetes Secret or a compose variable that must be set, never from the file itself."""
    if "--api-key-file" in args:
        return True
    key = env.get("CARDTABLE_API_KEY")
    if isinstance(key, dict):
        return "secretKeyRef" in key.get("valueFrom", {})
    return isinstance(key, str) and re.fullmatch(r"\$\{CARDTABLE_API_KEY:\?[^}]+\}", key) is not None


def test_every_server_bound_beyond_loopback_takes_its_api_key_from_a_secret():
    found = servers()
    assert {where.split()[0] for where, _, _ in found} == {"compose.yaml", "k8s/service.yaml"}
    for where, args, env in found:
        assert ALLOW_UNAUTHENTICATED not in args and "--api-key" not in args, where
        if not is_loopback(host_of(args)):
            assert key_from_a_secret(args, env), f"{where} binds {host_of(args)} without an API key from a secret"


def test_the_images_default_command_needs_its_key_at_run_time():
    text = (DEPLOY / "Dockerfile").read_text()
    command = json.loads(re.search(r"^CMD (.+)$", text, re.MULTILINE).group(1))
    assert not is_loopback(host_of(command)) and ALLOW_UNAUTHENTICATED not in command
    assert not re.search(r"^ENV\b.*CARDTABLE_API_KEY", text, re.MULTILINE)  # no key baked into the image
    assert "docker run -e CARDTABLE_API_KEY=" in text  # the usage line says where it comes from
