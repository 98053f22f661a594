"""Separate hosts on one machine for the fault drill: each host a network namespace (its own loopback, ports and
address), joined by a veth pair to a bridge that lives in a hub namespace of its own. Nothing is added to the
machine's own namespace: every address is inside the lab, and deleting the namespaces removes every link.

    lab = Lab.create(["temporal", "s3", "worker"])   # names unique to this run (cq<hex>-<host>)
    lab.ip("temporal")                                # 10.77.0.2
    lab.wrap("worker") + ["colloquy", "worker", ...]  # a command run on that host
    lab.cut("worker"); lab.heal("worker")             # its link down / up (a partition and the way back)
    lab.close()                                       # its processes killed (by pid), the namespaces deleted

A link is cut at the hub's end of the host's veth pair: the host keeps its address and sockets, and packets in
either direction go nowhere until it is healed (`tc netem` is not available here, so delay and loss are not
modelled). Needs root and iproute2's `ip`; `unavailable()` says why not, for a clean skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
from dataclasses import asdict, dataclass, field

SUBNET = "10.77.0"   # inside the lab only (each lab has a bridge of its own, so two labs never meet)
HOST_IF = "eth0"     # each host's end of its veth pair, inside its own namespace


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


def unavailable() -> str | None:
    """Why network namespaces cannot be made here (None: they can)."""
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed (the fault drill makes its hosts with `ip netns`)"
    if os.geteuid() != 0:
        return "the fault drill's hosts are network namespaces (`ip netns add`): run as root, as CI does"
    name = f"cqprobe{secrets.token_hex(3)}"
    made = _ip("netns", "add", name, check=False)
    if made.returncode != 0:
        return f"`ip netns add` is refused here: {made.stderr.strip()[:200]}"
    _ip("netns", "del", name, check=False)
    return None


@dataclass
class Host:
    name: str
    ns: str
    ip: str
    hub_if: str   # the hub's end of its veth pair (what `cut` takes down)


@dataclass
class Lab:
    prefix: str
    hub: str
    hosts: dict[str, Host] = field(default_factory=dict)

    @classmethod
    def create(cls, names: list[str]) -> Lab:
        prefix = f"cq{secrets.token_hex(3)}"
        lab = cls(prefix=prefix, hub=f"{prefix}-hub")
        try:
            _ip("netns", "add", lab.hub)
            _ip("-n", lab.hub, "link", "add", "br0", "type", "bridge")
            _ip("-n", lab.hub, "link", "set", "br0", "up")
            for i, name in enumerate(names):
                host = Host(name=name, ns=f"{prefix}-{name}"[:40], ip=f"{SUBNET}.{i + 2}", hub_if=f"{prefix}h{i}")
                _ip("netns", "add", host.ns)
                lab.hosts[name] = host
                _ip("link", "add", HOST_IF, "netns", host.ns, "type", "veth", "peer", "name", host.hub_if,
                    "netns", lab.hub)
                _ip("-n", lab.hub, "link", "set", host.hub_if, "master", "br0", "up")
                _ip("-n", host.ns, "addr", "add", f"{host.ip}/24", "dev", HOST_IF)
                _ip("-n", host.ns, "link", "set", HOST_IF, "up")
                _ip("-n", host.ns, "link", "set", "lo", "up")
        except BaseException:
            lab.close()
            raise
        return lab

    def ip(self, name: str) -> str:
        return self.hosts[name].ip

    def wrap(self, name: str) -> list[str]:
        """The prefix that runs a command on this host."""
        return ["ip", "netns", "exec", self.hosts[name].ns]

    def cut(self, name: str) -> None:
        _ip("-n", self.hub, "link", "set", self.hosts[name].hub_if, "down")

    def heal(self, name: str) -> None:
        _ip("-n", self.hub, "link", "set", self.hosts[name].hub_if, "up")

    def pids(self) -> dict[str, list[int]]:
        """The processes on each host (ours: the lab's namespaces hold nothing else)."""
        found = {}
        for host in self.hosts.values():
            out = _ip("netns", "pids", host.ns, check=False).stdout.split()
            found[host.name] = [int(p) for p in out if p.isdigit()]
        return found

    def close(self) -> None:
        """Kill what still runs on the hosts (each by its pid), then delete every namespace of the lab."""
        for pids in self.pids().values():
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for host in self.hosts.values():
            _ip("netns", "del", host.ns, check=False)
        _ip("netns", "del", self.hub, check=False)

    def exists(self) -> list[str]:
        """The lab's namespaces still present (empty after `close`)."""
        listed = _ip("netns", "list", check=False).stdout
        return [line.split()[0] for line in listed.splitlines() if line.startswith(self.prefix + "-")]

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Lab:
        data = json.loads(text)
        return cls(prefix=data["prefix"], hub=data["hub"], hosts={k: Host(**v) for k, v in data["hosts"].items()})
