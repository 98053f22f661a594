"""`colloquy serve` and object storage in every deployment (issue 25), checked statically like the rest of the
deploy files (no Docker engine or cluster here): the compose services and the k8s objects run the real CLI,
probe the real health endpoint, take secrets from the environment / Secrets, and stay in step with each other."""

from __future__ import annotations

import re
import subprocess

import yaml

from tests.seaweedfs import weed_binary
from tests.unit.platform.test_deploy import K8S, _k8s_docs, _parse_colloquy_args, _pinned
from tests.unit.platform.test_deploy_compose import _services

SECRET_VARS = {"COLLOQUY_SERVE_TOKEN", "COLLOQUY_ROOM_SECRET", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
STORE_VARS = {"COLLOQUY_ARTIFACT_STORE", "COLLOQUY_S3_ENDPOINT", "COLLOQUY_S3_BUCKET", "COLLOQUY_S3_REGION"}


def _by_name(kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in _k8s_docs() if d["kind"] == kind}


def _example_secrets() -> dict[str, set[str]]:
    docs = [d for d in yaml.safe_load_all((K8S / "secret.example.yaml").read_text()) if d]
    return {d["metadata"]["name"]: set(d["stringData"]) for d in docs}


def test_compose_serve_is_the_real_cli_health_checked_stateless_and_wired_to_the_ui():
    services = _services()
    serve, ui = services["colloquy-serve"], services["temporal-ui"]
    params = _parse_colloquy_args(serve["command"])
    assert params["command"] == "serve" and params["host"] == "0.0.0.0" and params["port"] == 8234
    assert serve["ports"] == [f"127.0.0.1:{params['port']}:{params['port']}"]
    health = serve["healthcheck"]["test"]
    assert health[0] == "CMD" and f"http://127.0.0.1:{params['port']}/healthz" in " ".join(health)
    assert "volumes" not in serve  # stateless: nothing of a run on its disk
    env = serve["environment"]
    for var in SECRET_VARS:
        assert re.fullmatch(r"\$\{\w+:-[^}]*\}", env[var]), f"{var} must come from the host's environment"
    assert {k: env[k] for k in STORE_VARS} == {k: services["colloquy-worker"]["environment"][k] for k in STORE_VARS}
    for dep in ("temporal", "seaweedfs", "colloquy-worker"):
        assert serve["depends_on"][dep] == {"condition": "service_healthy"}
    # the Web UI decodes through this serve, and serve answers the UI's origin (CORS)
    assert ui["environment"]["TEMPORAL_CODEC_ENDPOINT"] == f"http://127.0.0.1:{params['port']}/codec"
    assert services["colloquy-worker"]["environment"]["COLLOQUY_SERVE_URL"].endswith(f":{params['port']}}}")
    ui_origin = "http://" + ui["ports"][0].rsplit(":", 1)[0]
    assert ui_origin in params["origin"] and ui_origin in ui["environment"]["TEMPORAL_CORS_ORIGINS"]
    assert serve["image"] == services["colloquy-worker"]["image"]


def test_compose_object_store_is_the_release_the_tests_run():
    store = _services()["seaweedfs"]
    out = subprocess.run([weed_binary(), "version"], capture_output=True, text=True, check=True).stdout
    version = re.search(r"\b(\d+\.\d+)\b", out.replace("8000GB", "")).group(1)  # type: ignore[union-attr]
    assert store["image"] == f"chrislusf/seaweedfs:{version}"
    assert "-s3" in store["command"] and "ports" not in store  # reachable by the services only
    assert "8333" in " ".join(store["healthcheck"]["test"])
    worker = _services()["colloquy-worker"]["environment"]
    assert worker["COLLOQUY_S3_ENDPOINT"] == "http://seaweedfs:8333"
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        assert store["environment"][var] == worker[var]  # the store's identity is the clients' credentials


def test_current_pins():
    ollama = _services()["ollama"]["image"]
    assert _pinned(ollama) and ollama != "ollama/ollama:0.5.7"
    major, minor, *_ = (int(x) for x in ollama.rsplit(":", 1)[1].split("."))
    assert (major, minor) >= (0, 24)


def test_k8s_serve_deployment_service_ingress_and_secrets():
    [container] = _by_name("Deployment")["colloquy-serve"]["spec"]["template"]["spec"]["containers"]
    spec = _by_name("Deployment")["colloquy-serve"]["spec"]
    assert spec["replicas"] >= 2  # replicas behave as one: the point of a stateless serve
    assert _pinned(container["image"])
    params = _parse_colloquy_args(container["args"])
    assert params["command"] == "serve" and params["host"] == "0.0.0.0"
    [port] = container["ports"]
    assert port["containerPort"] == params["port"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": port["name"]}, probe
    refs = {r["secretRef"]["name"]: r["secretRef"].get("optional", False) for r in container["envFrom"]
            if "secretRef" in r}
    assert refs["colloquy-serve"] is False  # required: every replica the same token and room secret
    # serve has its own scoped object-store user (rules/serve_writes.py), never the workers' credentials
    assert "colloquy-object-store-serve" in refs and "colloquy-object-store" not in refs
    assert "colloquy-llm-keys" not in refs  # serve calls no model
    volumes = spec["template"]["spec"]["volumes"]
    assert not [v for v in volumes if "persistentVolumeClaim" in v]  # stateless: no shared disk
    assert _example_secrets()["colloquy-serve"] == {"COLLOQUY_SERVE_TOKEN", "COLLOQUY_ROOM_SECRET"}
    for name in ("colloquy-object-store", "colloquy-object-store-serve"):
        assert _example_secrets()[name] == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    service = _by_name("Service")["colloquy-serve"]
    assert service["spec"]["selector"].items() <= spec["template"]["metadata"]["labels"].items()
    assert service["spec"]["ports"][0]["targetPort"] == port["name"]
    ingress = _by_name("Ingress")["colloquy-serve"]
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": "colloquy-serve", "port": {"name": service["spec"]["ports"][0]["name"]}}
    [tls] = ingress["spec"]["tls"]
    assert tls["secretName"] and tls["hosts"] == [ingress["spec"]["rules"][0]["host"]]
    assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"  # SSE
    config = next(iter(_by_name("ConfigMap").values()))["data"]
    assert config["COLLOQUY_SERVE_URL"] == f"https://{tls['hosts'][0]}"  # results link essays at the Ingress
    assert "serve.yaml" in yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]


def test_compose_services_and_k8s_objects_stay_in_step():
    """Each Colloquy service of the compose file has its k8s Deployment (by command), with the same image, the
    same store settings (ConfigMap), the same secrets (Secret keys) and the same health endpoint/check."""
    services, deployments = _services(), _by_name("Deployment")
    config = next(iter(_by_name("ConfigMap").values()))["data"]
    secrets = _example_secrets()
    colloquy = {n: s for n, s in services.items() if "colloquy-worker" in str(s.get("image", ""))}
    compose_commands = {_parse_colloquy_args(s["command"])["command"] for s in colloquy.values()}
    k8s_commands = {}
    for name, dep in deployments.items():
        [container] = dep["spec"]["template"]["spec"]["containers"]
        k8s_commands.setdefault(_parse_colloquy_args(container["args"])["command"], []).append((name, container))
        assert container["image"].rsplit(":", 1)[1] == colloquy["colloquy-worker"]["image"].rsplit(":", 1)[1]
    assert compose_commands == set(k8s_commands) == {"worker", "serve"}
    for service in colloquy.values():
        command = _parse_colloquy_args(service["command"])["command"]
        env = service["environment"]
        for _name, container in k8s_commands[command]:
            from_secrets = set().union(*(secrets.get(r["secretRef"]["name"], set()) for r in container["envFrom"]
                                         if "secretRef" in r))
            for var in STORE_VARS:
                assert config[var] and var in env, var
            assert config["COLLOQUY_ARTIFACT_STORE"] == env["COLLOQUY_ARTIFACT_STORE"] == "s3"
            wanted = {v for v in SECRET_VARS if v in env}
            assert wanted <= from_secrets, (command, wanted - from_secrets)
            assert not any(v in config for v in SECRET_VARS)  # never in the ConfigMap
            if command == "serve":
                assert _parse_colloquy_args(service["command"])["port"] == \
                    _parse_colloquy_args(container["args"])["port"]
                assert container["readinessProbe"]["httpGet"]["path"] in " ".join(service["healthcheck"]["test"])
            else:
                assert container["readinessProbe"]["exec"]["command"][:2] == service["healthcheck"]["test"][1:3]
