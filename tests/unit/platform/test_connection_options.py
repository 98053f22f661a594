"""Connection options once (client/connection.py): every command that connects to Temporal takes the same flags.
They had drifted — notes, write and discuss lacked --tls-ca and --api-key-env."""

from __future__ import annotations

from typing import Any

import typer
from typer.testing import CliRunner

from client.cli import app
from client.connection import FLAGS, NO_FLAGS, Connection, connects

#: Commands that take a connection flag but not all of them, and why.
OWN_CONNECTION = {"demo": "runs against its own embedded server, or --address (TLS and namespace from TEMPORAL_* "
                          "and profiles)"}


def _commands() -> dict[str, Any]:
    root = typer.main.get_command(app)
    ctx = type(root).context_class(root)
    found: dict[str, Any] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        if hasattr(cmd, "list_commands"):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*path, name])
        else:
            found[" ".join(path)] = cmd

    walk(root, [])
    return found


def test_every_command_that_connects_takes_every_connection_option():
    connecting, drifted = [], []
    for name, cmd in _commands().items():
        flags = {opt for param in cmd.params for opt in param.opts}
        if not flags & set(FLAGS) or name in OWN_CONNECTION:
            continue
        connecting.append(name)
        if missing := sorted(set(FLAGS) - flags):
            drifted.append(f"{name}: {', '.join(missing)}")
    assert not drifted, "commands missing connection options: " + "; ".join(drifted)
    assert {"notes ask", "notes import", "write start", "discuss", "interview start", "worker", "serve",
            "study create", "study review", "study export"} <= set(connecting)


def test_connects_hands_the_command_one_connection_from_the_flags():
    seen: list[Connection] = []
    demo = typer.Typer()

    @demo.command()
    @connects
    def status(workflow_id: str, conn: Connection = NO_FLAGS) -> None:
        seen.append(conn)
        typer.echo(workflow_id)

    result = CliRunner().invoke(demo, ["wf-1", "--address", "temporal.example:7233", "--tls-ca", "ca.pem",
                                       "--api-key-env", "MY_KEY", "--tls"], env={"TEMPORAL_NAMESPACE": "prod"})
    assert result.exit_code == 0, result.output
    assert seen == [Connection(address="temporal.example:7233", namespace="prod", tls=True, tls_ca="ca.pem",
                               api_key_env="MY_KEY")]
    s = seen[0].settings()
    assert (s.address, s.namespace, s.tls_ca, s.api_key_env) == ("temporal.example:7233", "prod", "ca.pem", "MY_KEY")
