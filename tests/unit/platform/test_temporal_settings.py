"""--address / TEMPORAL_ADDRESS, namespace, TLS (mTLS, CA) and API key → Client.connect arguments."""

from __future__ import annotations

import pytest
from temporalio.client import TLSConfig
from typer.testing import CliRunner

from client import common
from core.settings import TemporalSettings
from core.temporal import TemporalConfigError, connect_options

PEM = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_TLS", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY",
                 "TEMPORAL_TLS_CA", "TEMPORAL_API_KEY", "COLLOQUY_TEMPORAL_API_KEY_ENV", "TEMPORAL_PROFILE",
                 "TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_KEY_PATH", "TEMPORAL_TLS_SERVER_CA_CERT_PATH",
                 "TEMPORAL_TLS_SERVER_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", "/nonexistent/temporal.toml")


def _pem(tmp_path, name: str) -> str:
    path = tmp_path / name
    path.write_bytes(PEM.replace(b"CERTIFICATE", name.upper().encode()))
    return str(path)


def test_defaults_are_the_embedded_server():
    opts = connect_options(TemporalSettings.from_env())
    assert opts == {"target_host": "127.0.0.1:7233", "namespace": "default", "tls": False, "api_key": None}


def test_environment_and_flags(monkeypatch):
    monkeypatch.setenv("TEMPORAL_ADDRESS", "temporal.prod:7233")
    monkeypatch.setenv("TEMPORAL_NAMESPACE", "colloquy-prod")
    opts = connect_options(TemporalSettings.from_env())
    assert (opts["target_host"], opts["namespace"], opts["tls"]) == ("temporal.prod:7233", "colloquy-prod", False)
    # flags (the CLI passes them as overrides) win over the environment
    opts = connect_options(common.settings("other:7233", "ns2"))
    assert (opts["target_host"], opts["namespace"]) == ("other:7233", "ns2")


def test_mtls_cert_key_and_ca(tmp_path):
    s = common.settings("acme.tmprl.cloud:7233", "acme.abc12", tls_cert=_pem(tmp_path, "cert"),
                        tls_key=_pem(tmp_path, "key"), tls_ca=_pem(tmp_path, "ca"))
    tls = connect_options(s)["tls"]
    assert isinstance(tls, TLSConfig)
    assert b"BEGIN CERT" in tls.client_cert and b"BEGIN KEY" in tls.client_private_key
    assert b"BEGIN CA" in tls.server_root_ca_cert


def test_ca_alone_turns_tls_on(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TLS_CA", _pem(tmp_path, "ca"))
    tls = connect_options(TemporalSettings.from_env(address="temporal.internal:7233"))["tls"]
    assert isinstance(tls, TLSConfig) and tls.client_cert is None and tls.server_root_ca_cert


def test_plain_tls_flag(monkeypatch):
    monkeypatch.setenv("TEMPORAL_TLS", "true")
    tls = connect_options(TemporalSettings.from_env())["tls"]
    assert isinstance(tls, TLSConfig) and tls.client_cert is None


def test_api_key_from_the_environment_implies_tls_for_remote_hosts(monkeypatch):
    monkeypatch.setenv("TEMPORAL_API_KEY", "tmprl-api-key-value")
    remote = connect_options(common.settings("us-east-1.aws.api.temporal.io:7233", "acme.abc12"))
    assert remote["api_key"] == "tmprl-api-key-value" and isinstance(remote["tls"], TLSConfig)
    local = connect_options(common.settings("127.0.0.1:7233"))
    assert local["api_key"] == "tmprl-api-key-value" and local["tls"] is False
    monkeypatch.setenv("MY_KEY", "other-key")
    assert connect_options(common.settings(api_key_env="MY_KEY"))["api_key"] == "other-key"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tls_cert": "/nonexistent/client.pem", "tls_key": "/nonexistent/client.key"},
     "TLS client certificate file /nonexistent/client.pem does not exist (--tls-cert / TEMPORAL_TLS_CERT)"),
    ({"tls_ca": "/nonexistent/ca.pem"}, "TLS CA certificate file /nonexistent/ca.pem does not exist"),
    ({"tls_cert": "CERT"}, "only --tls-cert/TEMPORAL_TLS_CERT is set"),
    ({"tls_key": "KEY"}, "only --tls-key/TEMPORAL_TLS_KEY is set"),
    ({"tls_ca": "NOT_PEM"}, "is not PEM"),
])
def test_bad_tls_settings_give_a_clear_error(tmp_path, kwargs, message):
    (tmp_path / "garbage.txt").write_text("hello")
    values = {k: (str(tmp_path / "garbage.txt") if v == "NOT_PEM" else _pem(tmp_path, v.lower()) if v in (
        "CERT", "KEY") else v) for k, v in kwargs.items()}
    with pytest.raises(TemporalConfigError) as err:
        connect_options(common.settings("remote:7233", **values))
    assert message in str(err.value)


def test_cli_reports_bad_tls_paths_without_a_traceback():
    from client.cli import app

    result = CliRunner().invoke(app, ["worker", "--address", "remote:7233", "--tls-ca", "/nonexistent/ca.pem"])
    assert result.exit_code == 2
    assert "TLS CA certificate file /nonexistent/ca.pem does not exist" in result.output
    assert "Traceback" not in result.output


def test_every_command_documents_its_options():
    from client.cli import app

    runner = CliRunner()
    for args in (["--help"], ["server", "start", "--help"], ["server", "stop", "--help"],
                 ["server", "status", "--help"], ["worker", "--help"], ["models", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
    text = runner.invoke(app, ["worker", "--help"], terminal_width=200).output
    for flag in ("--address", "--namespace", "--tls", "--tls-cert", "--tls-key", "--tls-ca", "--api-key-env",
                 "--role"):
        assert flag in text


# --- the `temporal` CLI's own profiles and variable names (temporalio.envconfig) ---------------------------

def test_a_temporal_cli_profile_file_is_read(monkeypatch, tmp_path):
    cert, key = _pem(tmp_path, "cert"), _pem(tmp_path, "key")
    toml = tmp_path / "temporal.toml"
    toml.write_text(f"""
[profile.default]
address = "127.0.0.1:7555"

[profile.prod]
address = "colloquy.a1b2c.tmprl.cloud:7233"
namespace = "colloquy.a1b2c"
[profile.prod.tls]
client_cert_path = "{cert}"
client_key_path = "{key}"
server_name = "colloquy.a1b2c.tmprl.cloud"
""")
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", str(toml))
    assert connect_options(TemporalSettings.from_env())["target_host"] == "127.0.0.1:7555"
    monkeypatch.setenv("TEMPORAL_PROFILE", "prod")
    opts = connect_options(TemporalSettings.from_env())
    assert (opts["target_host"], opts["namespace"]) == ("colloquy.a1b2c.tmprl.cloud:7233", "colloquy.a1b2c")
    assert isinstance(opts["tls"], TLSConfig) and opts["tls"].client_cert == PEM.replace(b"CERTIFICATE", b"CERT")
    assert opts["tls"].domain == "colloquy.a1b2c.tmprl.cloud"
    # the CLI's environment variables override the file; flags override both
    monkeypatch.setenv("TEMPORAL_NAMESPACE", "from-env")
    assert connect_options(TemporalSettings.from_env())["namespace"] == "from-env"
    assert connect_options(common.settings(None, "from-flag"))["namespace"] == "from-flag"


def test_the_temporal_cli_tls_variable_names_work_and_old_names_stay_aliases(monkeypatch, tmp_path):
    monkeypatch.setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", _pem(tmp_path, "cert"))
    monkeypatch.setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", _pem(tmp_path, "key"))
    opts = connect_options(TemporalSettings.from_env())
    assert isinstance(opts["tls"], TLSConfig) and opts["tls"].client_private_key.startswith(b"-----BEGIN KEY")
    monkeypatch.delenv("TEMPORAL_TLS_CLIENT_CERT_PATH")
    monkeypatch.delenv("TEMPORAL_TLS_CLIENT_KEY_PATH")
    monkeypatch.setenv("TEMPORAL_TLS_CERT", _pem(tmp_path, "cert"))
    monkeypatch.setenv("TEMPORAL_TLS_KEY", _pem(tmp_path, "key"))
    assert isinstance(connect_options(TemporalSettings.from_env())["tls"], TLSConfig)


def test_an_unknown_profile_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("TEMPORAL_PROFILE", "nope")
    with pytest.raises(Exception) as err:
        TemporalSettings.from_env()
    assert "profile 'nope'" in str(err.value)
    result = CliRunner().invoke(__import__("client.cli", fromlist=["app"]).app, ["health"])
    assert result.exit_code == 2 and "profile 'nope'" in result.output
