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

``kernel`` has the host side (names, BPF objects, struct_ops, availability), ``bed`` the
:class:`Testbed` and its process helpers, ``emulate`` the emulated path (``airtcp testbed``);
``bulk`` and ``probe`` are the standard-library programs run inside the namespaces.
"""

from __future__ import annotations

from .bed import Testbed, bulk_argv, read_json_line, ss_connections, wait_file
from .kernel import (
    ALLOWED,
    AVAILABLE,
    BPF_OBJECTS,
    KERNEL_CC,
    KERNEL_DIR,
    LOCK_PATH,
    TestbedError,
    available_cc,
    build_bpf,
    list_netns,
    process_gone,
    set_default_cc,
    struct_ops_maps,
    unavailable_reason,
)

__all__ = [
    "ALLOWED",
    "AVAILABLE",
    "BPF_OBJECTS",
    "KERNEL_CC",
    "KERNEL_DIR",
    "LOCK_PATH",
    "Testbed",
    "TestbedError",
    "available_cc",
    "build_bpf",
    "bulk_argv",
    "list_netns",
    "process_gone",
    "read_json_line",
    "set_default_cc",
    "ss_connections",
    "struct_ops_maps",
    "unavailable_reason",
    "wait_file",
]
