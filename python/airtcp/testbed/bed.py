"""The :class:`Testbed`: everything one testbed creates (namespaces with their interfaces,
registered ``struct_ops`` congestion controls, processes by PID, files), removed on every exit
path; and helpers for the processes it runs (the bulk transfer's argv, ``ss`` output, JSON lines).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional, cast

from .kernel import (
    AVAILABLE,
    BPF_OBJECTS,
    LOCK_PATH,
    TestbedError,
    _run,
    available_cc,
    build_bpf,
    list_netns,
    struct_ops_maps,
)


class Testbed:
    """Namespaces, interfaces, congestion controls and processes, all torn down on exit."""

    def __init__(self, tag: str = "t") -> None:
        self.prefix = f"atcp{os.getpid() % 100000}{tag}"
        self.namespaces: list[str] = []
        self.struct_ops: list[tuple[int, str]] = []
        self.procs: list[subprocess.Popen[str]] = []
        self.files: list[Path] = []
        self._lock_fd: Optional[int] = None
        self._old_term: Any = None

    # -- lifetime ---------------------------------------------------------------------------
    def __enter__(self) -> "Testbed":
        LOCK_PATH.parent.mkdir(parents=True, exist_ok=True)
        self._lock_fd = os.open(LOCK_PATH, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        # SIGTERM tears down like Ctrl-C (KeyboardInterrupt unwinds through __exit__).
        self._old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.close()
        finally:
            if self._old_term is not None:
                signal.signal(signal.SIGTERM, self._old_term)
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    def close(self) -> None:
        """Stops our processes (by PID), unregisters our struct_ops, deletes our namespaces. Ctrl-C
        during teardown is held until teardown is done."""
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            errors = []
            for p in self.procs:
                if p.poll() is None:
                    p.terminate()
            for p in self.procs:
                try:
                    p.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            self.procs.clear()
            for map_id, name in reversed(self.struct_ops):
                r = _run(["bpftool", "struct_ops", "unregister", "id", str(map_id)], check=False)
                if r.returncode != 0 and name in available_cc():
                    errors.append(f"struct_ops {name} id {map_id}: {r.stderr.strip()}")
            for ns in reversed(self.namespaces):
                r = _run(["ip", "netns", "del", ns], check=False)
                if r.returncode != 0 and ns in list_netns():
                    errors.append(f"netns {ns}: {r.stderr.strip()}")
            self.namespaces.clear()
            # An unregistered map is freed when the last socket using it is gone; sockets of ours
            # still closing (orphans, limited to one retry per namespace) hold it a moment.
            ours = {i for i, _ in self.struct_ops}
            deadline = time.monotonic() + 15
            while ours & {i for i, _ in struct_ops_maps()} and time.monotonic() < deadline:
                time.sleep(0.1)
            left = ours & {i for i, _ in struct_ops_maps()}
            if left:
                errors.append(f"struct_ops ids {sorted(left)} still held by sockets after 15 s")
            self.struct_ops.clear()
            for f in self.files:
                f.unlink(missing_ok=True)
            self.files.clear()
            if errors:
                raise TestbedError("teardown: " + "; ".join(errors))
        finally:
            signal.signal(signal.SIGINT, old_int)

    # -- resources --------------------------------------------------------------------------
    def netns(self, role: str) -> str:
        """A new namespace named <prefix><role>, loopback up."""
        name = f"{self.prefix}{role}"
        _run(["ip", "netns", "add", name])
        self.namespaces.append(name)
        _run(["ip", "-n", name, "link", "set", "lo", "up"])
        # Orphaned sockets (a peer gone at teardown) give up after one retry, so they release our
        # congestion control (and the namespace) within seconds instead of minutes.
        _run(
            [
                "ip",
                "netns",
                "exec",
                name,
                "sysctl",
                "-qw",
                "net.ipv4.tcp_orphan_retries=1",
                "net.ipv4.tcp_fin_timeout=1",
            ]
        )
        return name

    def veth(self, ns_a: str, addr_a: str, ns_b: str, addr_b: str, tag: str = "v") -> tuple[str, str]:
        """A veth pair between two namespaces with /24 addresses; returns the interface names.
        Deleting a namespace deletes its end (and so the pair)."""
        a, b = f"{tag}{os.getpid() % 100000}a", f"{tag}{os.getpid() % 100000}b"
        _run(["ip", "link", "add", a, "netns", ns_a, "type", "veth", "peer", "name", b, "netns", ns_b])
        for ns, dev, addr in ((ns_a, a, addr_a), (ns_b, b, addr_b)):
            _run(["ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev])
            _run(["ip", "-n", ns, "link", "set", dev, "up"])
        return a, b

    def register(self, kernel_cc: str) -> None:
        """Makes `kernel_cc` available: ours are registered from kernel/build (built if needed); the
        kernel's own (reno, cubic, ...) must already be available."""
        if kernel_cc not in BPF_OBJECTS:
            if kernel_cc not in available_cc():
                raise TestbedError(f"cc: kernel congestion control {kernel_cc} is not available")
            return
        obj = build_bpf() / BPF_OBJECTS[kernel_cc]
        if kernel_cc in available_cc():
            # Left registered by a crashed run of ours (the lock excludes a live one): unregister
            # it (draining maps of the same name answer EINPROGRESS and are left to finish).
            for map_id, name in struct_ops_maps():
                if name == kernel_cc:
                    _run(["bpftool", "struct_ops", "unregister", "id", str(map_id)], check=False)
        r = _run(["bpftool", "struct_ops", "register", str(obj)])
        out = r.stdout + r.stderr  # bpftool reports on stderr
        m = re.search(r"Registered tcp_congestion_ops (\S+) id (\d+)", out)
        if not m or m.group(1) != kernel_cc:
            raise TestbedError(f"bpftool struct_ops register {obj}: unexpected answer {out.strip()!r}")
        self.struct_ops.append((int(m.group(2)), kernel_cc))
        if kernel_cc not in available_cc():
            raise TestbedError(f"{kernel_cc} registered but not in {AVAILABLE}")

    def spawn(self, ns: Optional[str], argv: list[str]) -> subprocess.Popen[str]:
        """Starts `argv` inside namespace `ns` (None: this one); stopped by PID at teardown."""
        full = ["ip", "netns", "exec", ns, *argv] if ns else argv
        p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.procs.append(p)
        return p

    def run_in(self, ns: str, argv: list[str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return _run(["ip", "netns", "exec", ns, *argv], timeout=timeout)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def struct_ops_ids(self) -> list[int]:
        return [i for i, _ in self.struct_ops]


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def ss_connections(tb: Testbed, ns: str, dst: str) -> list[dict[str, Any]]:
    """`ss -tin` for connections to `dst` in `ns`: the congestion control name and a few fields."""
    out = tb.run_in(ns, ["ss", "-tinH", "dst", dst]).stdout
    conns = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(("ESTAB", "FIN", "CLOSE", "LAST", "TIME")) or i + 1 >= len(lines):
            continue
        info = lines[i + 1].split()
        d: dict[str, Any] = {"cc": info[0] if info else ""}
        for tok in info[1:]:
            if ":" in tok:
                k, v = tok.split(":", 1)
                d[k] = v
        conns.append(d)
    return conns


def bulk_argv(role: str, **kw: Any) -> list[str]:
    """argv of the bulk client/sink (bulk.py, standard library only: run by path so that the
    namespaced process does not import the simulator)."""
    argv = [sys.executable, str(Path(__file__).with_name("bulk.py")), role]
    for k, v in kw.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    return argv


def wait_file(path: Path, timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > end:
            raise TestbedError(f"timed out waiting for {path}")
        time.sleep(0.02)


def read_json_line(p: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    out, err = p.communicate(timeout=timeout)
    if p.returncode != 0:
        raise TestbedError(f"{' '.join(map(str, cast(list[Any], p.args)))}: {(err or out).strip().splitlines()[-1:]}")
    return json.loads(out.strip().splitlines()[-1])
