"""Real-kernel testbed: airtcp's BPF congestion controls on real TCP connections between network
namespaces (issue 7).

:class:`Testbed` owns everything it creates — namespaces (and with them their veth/TUN interfaces),
registered ``struct_ops`` congestion controls, and processes (by PID) — and removes all of it on
exit, whether the body succeeded, raised, or was interrupted (Ctrl-C, SIGTERM). One testbed runs at
a time on a machine (a lock file), because congestion-control names are global to the kernel.

It never changes a namespace's default congestion control: the BPF algorithms are chosen per socket
(``TCP_CONGESTION``, allowed for root whatever ``net.ipv4.tcp_allowed_congestion_control`` says).
Setting a default to a BPF algorithm that is not in the allowed list leaks a kernel reference until
reboot (issue 7), so :func:`set_default_cc` refuses that.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional, cast

#: The repository's kernel/ folder (the package is installed editable from the repository).
KERNEL_DIR = Path(__file__).resolve().parents[3] / "kernel"

#: Scenario ``cc`` names -> kernel congestion-control names. The atcp_* ones are ours (BPF).
KERNEL_CC = {
    "reno": "reno",
    "cubic": "cubic",
    "bbr": "bbr",
    "westwood": "atcp_westwood",
    "jersey": "atcp_jersey",
    "new-jersey": "atcp_newjersey",
    "nj+": "atcp_njplus",
}

#: BPF object of each of our algorithms.
BPF_OBJECTS = {
    "atcp_westwood": "atcp_westwood.bpf.o",
    "atcp_jersey": "atcp_jersey.bpf.o",
    "atcp_newjersey": "atcp_newjersey.bpf.o",
    "atcp_njplus": "atcp_njplus.bpf.o",
}

LOCK_PATH = Path("/run/lock/airtcp-testbed.lock")
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
ALLOWED = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")


class TestbedError(Exception):
    """An expected failure (missing tool, a command that failed), reported as one line."""


def _run(argv: list[str], check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        msg = (p.stderr or p.stdout).strip().splitlines()
        raise TestbedError(f"{' '.join(argv)}: {msg[-1] if msg else f'exit {p.returncode}'}")
    return p


def unavailable_reason(need_tun: bool = False) -> Optional[str]:
    """None when this machine can run the testbed, else a one-line reason (for test skips)."""
    if sys.platform != "linux":
        return "not Linux"
    if os.geteuid() != 0:
        return "needs root (network namespaces, BPF struct_ops)"
    for tool in ("ip", "bpftool", "clang", "ss", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} not installed (`make kernel-deps` installs the Debian packages)"
    if not Path("/sys/kernel/btf/vmlinux").exists():
        return "kernel without BTF (/sys/kernel/btf/vmlinux)"
    if not (KERNEL_DIR / "Makefile").exists():
        return f"{KERNEL_DIR} not found (the package is not installed from the repository)"
    if need_tun and not Path("/dev/net/tun").exists():
        return "no /dev/net/tun"
    name = f"atcpchk{os.getpid() % 100000}"
    p = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if p.returncode != 0:
        return f"network namespaces unavailable: {p.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


def build_bpf() -> Path:
    """Builds kernel/build/*.bpf.o (make is a no-op when they are up to date); returns the folder."""
    _run(["make", "-s", "-C", str(KERNEL_DIR), "bpf"], timeout=300)
    return KERNEL_DIR / "build"


def available_cc() -> list[str]:
    return AVAILABLE.read_text().split()


def struct_ops_maps() -> list[tuple[int, str]]:
    """(id, name) of every tcp_congestion_ops struct_ops map, registered or draining (unregistered
    but still referenced by sockets: its name is then gone from tcp_available_congestion_control)."""
    p = _run(["bpftool", "struct_ops", "list"], check=False)
    maps = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\d+):\s+(\S+)\s+tcp_congestion_ops", line)
        if m:
            maps.append((int(m.group(1)), m.group(2)))
    return maps


def registered_struct_ops() -> list[str]:
    """Names of the tcp_congestion_ops struct_ops maps that exist now (registered or draining)."""
    return [name for _, name in struct_ops_maps()]


def set_default_cc(netns: str, cc: str) -> None:
    """Sets a namespace's default congestion control, refusing one outside the allowed list (a
    refused BPF default leaks a kernel reference until reboot)."""
    allowed = ALLOWED.read_text().split()
    if cc not in allowed:
        raise TestbedError(f"cc: {cc} is not in net.ipv4.tcp_allowed_congestion_control ({' '.join(allowed)})")
    _run(["ip", "netns", "exec", netns, "sysctl", "-qw", f"net.ipv4.tcp_congestion_control={cc}"])


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


def list_netns() -> list[str]:
    p = _run(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


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


def process_gone(pid: int) -> bool:
    """True when no process (not even a zombie) has this PID."""
    try:
        os.kill(pid, 0)
    except OSError as e:
        return e.errno == errno.ESRCH
    return False


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
