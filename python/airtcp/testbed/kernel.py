"""The host kernel's side of the testbed: congestion-control names, our BPF objects, struct_ops
maps, namespaces, whether this machine can run the testbed at all, and the error type.

Setting a namespace's default congestion control to a BPF algorithm that is not in the allowed list
leaks a kernel reference until reboot (issue 7), so :func:`set_default_cc` refuses that.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

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


def set_default_cc(netns: str, cc: str) -> None:
    """Sets a namespace's default congestion control, refusing one outside the allowed list (a
    refused BPF default leaks a kernel reference until reboot)."""
    allowed = ALLOWED.read_text().split()
    if cc not in allowed:
        raise TestbedError(f"cc: {cc} is not in net.ipv4.tcp_allowed_congestion_control ({' '.join(allowed)})")
    _run(["ip", "netns", "exec", netns, "sysctl", "-qw", f"net.ipv4.tcp_congestion_control={cc}"])


def list_netns() -> list[str]:
    p = _run(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


def process_gone(pid: int) -> bool:
    """True when no process (not even a zombie) has this PID."""
    try:
        os.kill(pid, 0)
    except OSError as e:
        return e.errno == errno.ESRCH
    return False
