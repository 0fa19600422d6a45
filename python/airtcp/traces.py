"""Recorded cellular link traces: which files the ``cellular-*`` experiments read, where a user
gets them, and a check that a folder holds the right ones (``airtcp traces``).

The traces are mahimahi's (K. Winstein, A. Sivaraman, H. Balakrishnan, "Stochastic Forecasts
Achieve High Throughput and Low Delay over Cellular Networks", NSDI 2013), distributed in the
``traces/`` folder of github.com/ravinet/mahimahi and not redistributed with airtcp. Each line of a
file is a millisecond at which one 1500-byte packet may cross the link. The SHA-256 digests below
are those of the files at mahimahi commit ae477d4 (checked against that repository's copies), so a
renamed or truncated file is caught before an experiment runs on it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "TRACES_ENV",
    "TRACE_FILES",
    "DOWNLOAD_BASE",
    "TraceFile",
    "TraceStatus",
    "traces_dir",
    "default_dir",
    "SYSTEM_DIR",
    "check",
    "download",
]

#: The environment variable naming the folder of the traces (``airtcp reproduce --traces DIR``
#: sets it for its run).
TRACES_ENV = "AIRTCP_TRACES"

#: Where mahimahi's traces can be downloaded, one file at a time (``<base>/<name>``).
DOWNLOAD_BASE = "https://raw.githubusercontent.com/ravinet/mahimahi/master/traces"


@dataclass(frozen=True)
class TraceFile:
    name: str
    size: int
    sha256: str
    network: str


#: The files the experiments read (experiments/cellular/*.sweep.toml), with their size in bytes
#: and SHA-256 as mahimahi distributes them.
TRACE_FILES: tuple[TraceFile, ...] = (
    TraceFile(
        "TMobile-UMTS-driving.down",
        1081622,
        "c97a74e7e6cf593d93b59f73db614bc6186bef510531636ad9961a3b9fc18024",
        "T-Mobile UMTS, driving",
    ),
    TraceFile(
        "TMobile-UMTS-driving.up",
        506697,
        "f2dc7c8e57f4cf525fefaff2d68c18a9118fd1382ce9c240b1d324a2a60f8a65",
        "T-Mobile UMTS, driving",
    ),
    TraceFile(
        "Verizon-EVDO-driving.down",
        321953,
        "60c9cd7b5d8be7d89d3807052a043f54787958f04cfd4c6c16fcdac6e2c3b9da",
        "Verizon EV-DO, driving",
    ),
    TraceFile(
        "Verizon-EVDO-driving.up",
        520867,
        "6055d60d234030035f59475dc1d39d99e7c2817b9fa5d485f1f0710b1aae2075",
        "Verizon EV-DO, driving",
    ),
    TraceFile(
        "Verizon-LTE-short.down",
        365580,
        "c918436fbd6246af134c76585d9395881fdd27203c59a8902b9a7c675b8a8e3e",
        "Verizon LTE",
    ),
    TraceFile(
        "Verizon-LTE-short.up",
        434258,
        "f6cd9049f58d70f12545772a3482ded085b6d50f06a2f4ff4afcfb6fe7976dcc",
        "Verizon LTE",
    ),
    TraceFile(
        "ATT-LTE-driving-2016.down",
        271440,
        "24a40538340de991e0a6595aefc381b11a3da0446176e69b51750707a57b0344",
        "AT&T LTE, driving (2016)",
    ),
    TraceFile(
        "ATT-LTE-driving-2016.up",
        113062,
        "ebb3d53674b77be4ed920ad91c4513a496e04e30da839e2ca8a627cb7269071e",
        "AT&T LTE, driving (2016)",
    ),
)


def default_dir() -> Path:
    """The per-user folder read when ``$AIRTCP_TRACES`` is not set: ``$XDG_DATA_HOME/airtcp/traces``
    (``~/.local/share/airtcp/traces``), where ``airtcp traces --download`` puts the files."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "airtcp" / "traces"


#: Where Debian's and Ubuntu's ``mahimahi-traces`` package installs them.
SYSTEM_DIR = Path("/usr/share/mahimahi/traces")


def traces_dir() -> Path:
    """Where the trace files of experiments with ``external_traces = true`` are read (their
    relative trace paths resolve against it): ``$AIRTCP_TRACES`` when set, else
    :func:`default_dir` when it exists, else :data:`SYSTEM_DIR` when that exists, else
    :func:`default_dir` (where ``airtcp traces --download`` would put them)."""
    env = os.environ.get(TRACES_ENV)
    if env:
        return Path(env).expanduser().absolute()
    user = default_dir()
    if not user.is_dir() and SYSTEM_DIR.is_dir():
        return SYSTEM_DIR
    return user


@dataclass(frozen=True)
class TraceStatus:
    file: TraceFile
    #: "ok", "missing", or what is wrong ("1234 bytes, expected ...", "different content ...").
    state: str

    @property
    def ok(self) -> bool:
        return self.state == "ok"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def _state(path: Path, t: TraceFile) -> str:
    if not path.is_file():
        return "missing"
    size = path.stat().st_size
    if size != t.size:
        return f"{size} bytes, expected {t.size} (not mahimahi's file)"
    if _sha256(path) != t.sha256:
        return "different content from mahimahi's file (SHA-256 differs)"
    return "ok"


def check(folder: Path, names: tuple[str, ...] | None = None) -> list[TraceStatus]:
    """The state of each expected file (or of those named) in ``folder``."""
    return [TraceStatus(t, _state(folder / t.name, t)) for t in TRACE_FILES if names is None or t.name in names]


def download(folder: Path, base: str = DOWNLOAD_BASE) -> list[TraceStatus]:
    """Downloads each expected file that ``folder`` lacks (or holds wrong) from ``base`` and keeps it
    only when its size and SHA-256 are mahimahi's; a file is written whole or not at all (a
    temporary file renamed into place). Returns the states afterwards. Raises OSError (including
    urllib's URLError) when a download fails."""
    folder.mkdir(parents=True, exist_ok=True)
    for st in check(folder):
        if st.ok:
            continue
        fd, tmp = tempfile.mkstemp(prefix=f".{st.file.name}.", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(f"{base}/{st.file.name}", timeout=60) as r:
                shutil.copyfileobj(r, out)
            if _state(Path(tmp), st.file) == "ok":
                os.chmod(tmp, 0o644)
                os.replace(tmp, folder / st.file.name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return check(folder)
