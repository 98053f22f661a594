"""Deploy files a Temporal operator would accept: current images aligned with the dev server, a health check
on every long-running service, dependencies that wait for health, and worker probes that run a real check.

There is no Docker engine or cluster here: the compose file is parsed by a spec-compliant compose parser
(compose-spec, the Rust `compose_spec` crate) and the rest is checked statically."""

from __future__ import annotations

import re
import subprocess

import pytest
import yaml

from core.settings import ROOT, SEARCH_ATTRIBUTES
from tests.unit.platform.test_deploy import _k8s_docs, _parse_colloquy_args

COMPOSE = ROOT / "docker-compose.yml"
ONE_SHOT = {"temporal-schema", "temporal-namespace"}


def _services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def test_compose_file_is_valid_compose_spec():
    compose_spec = pytest.importorskip("compose_spec")
    parsed = compose_spec.PyCompose.from_yaml(COMPOSE.read_text())
    assert set(parsed.service_names()) == set(_services())
    assert "name" not in yaml.safe_load(COMPOSE.read_text())  # older docker-compose releases reject it


def _dev_server_versions() -> tuple[str, str]:
    from core.server import temporal_binary

    temporal = temporal_binary()
    out = subprocess.run([temporal, "--version"], capture_output=True, text=True, check=True).stdout
    server, ui = re.search(r"Server ([\d.]+), UI ([\d.]+)", out).groups()  # type: ignore[union-attr]
    return server, ui


def test_images_are_current_and_match_the_dev_server():
    services = _services()
    server, ui = _dev_server_versions()
    assert services["temporal"]["image"] == f"temporalio/server:{server}"
    for job in ONE_SHOT:
        assert services[job]["image"] == f"temporalio/admin-tools:{server}"
    assert services["temporal-ui"]["image"] == f"temporalio/ui:{ui}"
    assert not any("auto-setup" in str(s.get("image", "")) for s in services.values())


def test_every_service_is_health_checked_and_every_dependency_waits():
    services = _services()
    for name, svc in services.items():
        if name in ONE_SHOT:
            assert str(svc["restart"]).startswith("on-failure"), name
        else:
            test = svc["healthcheck"]["test"]
            assert test[0] in ("CMD", "CMD-SHELL") and len(test) > 1, name
        for dep, how in (svc.get("depends_on") or {}).items():
            expected = "service_completed_successfully" if dep in ONE_SHOT else "service_healthy"
            assert how == {"condition": expected}, f"{name} → {dep}: {how}"
    assert services["temporal"]["depends_on"] == {"temporal-schema": {"condition": "service_completed_successfully"}}


def test_schema_and_namespace_jobs_mount_their_scripts():
    services = _services()
    for job in ONE_SHOT:
        host, container = services[job]["volumes"][0].split(":")[:2]
        assert (ROOT / host).is_file() and services[job]["entrypoint"] == ["/bin/sh", container]
    script = (ROOT / "deploy/temporal/setup-namespace.sh").read_text()
    listed = re.search(r"for attr in ([^;]+);", script).group(1).split()  # type: ignore[union-attr]
    assert tuple(listed) == SEARCH_ATTRIBUTES
    assert "update-schema" in (ROOT / "deploy/temporal/setup-schema.sh").read_text()


def test_worker_health_check_is_a_real_colloquy_health_invocation():
    test = _services()["colloquy-worker"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "colloquy"]
    params = _parse_colloquy_args(test[2:])
    assert params["command"] == "health" and params["this_host"] and params["role"] == "all"


def test_k8s_workers_have_readiness_and_liveness_probes_for_their_role():
    deployments = [d for d in _k8s_docs() if d["kind"] == "Deployment" and d["metadata"]["name"] != "colloquy-serve"]
    assert deployments
    for dep in deployments:
        [container] = dep["spec"]["template"]["spec"]["containers"]
        role = _parse_colloquy_args(container["args"])["role"]
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            command = container[probe]["exec"]["command"]
            assert command[0] == "colloquy", (dep["metadata"]["name"], probe)
            params = _parse_colloquy_args(command[1:])
            assert params["command"] == "health" and params["this_host"] and params["role"] == role
            assert container[probe]["timeoutSeconds"] >= 10  # the CLI imports and asks the server
        assert container["livenessProbe"]["failureThreshold"] * container["livenessProbe"]["periodSeconds"] >= 90


def test_constraints_pin_every_runtime_dependency_as_installed():
    """deploy/constraints.txt is the lock: `make install` and the image install with it, so the versions the
    tests ran against are the versions the image carries."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("constraints", ROOT / "deploy" / "constraints.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    installed = mod.closure(mod.runtime_requirements())
    pins = mod.read_pins()
    assert {"temporalio", "litellm", "pydantic"} <= set(pins)
    missing = sorted(set(installed) - set(pins))
    assert not missing, f"not pinned: {missing}; run python deploy/constraints.py"
    drift = {n: (v, pins[n]) for n, v in installed.items() if pins[n] != v}
    assert not drift, f"installed ≠ pinned: {drift}"
    assert "-c deploy/constraints.txt" in (ROOT / "Makefile").read_text()
