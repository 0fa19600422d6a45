//! `airtcp-relay`: the kernel testbed's link emulator. Opens a TUN device in each of two network
//! namespaces and carries IPv4 packets between them through a scenario's links (see `lib.rs`).
//!
//!   airtcp-relay --scenario s.toml --src S --dst D --src-netns NS1 --src-tun tun0 \
//!                --dst-netns NS2 --dst-tun tun1 [--seed N]
//!
//! Prints `ready` once both devices exist (the caller then configures addresses and routes: the
//! devices vanish with this process), runs until SIGINT/SIGTERM, then prints one JSON line of
//! per-hop counters. Errors: one line `error: ...` on stderr, exit 2.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

use airtcp_testbed::{ipv4_meta, paths, Path};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(name = "airtcp-relay", about = "Link emulator between two network namespaces (TUN)")]
struct Args {
    /// Scenario TOML whose links are emulated.
    #[arg(long)]
    scenario: std::path::PathBuf,
    /// Seed of the queue and channel random streams (default: the scenario's).
    #[arg(long)]
    seed: Option<u64>,
    /// Scenario node of the sender side.
    #[arg(long)]
    src: String,
    /// Scenario node of the receiver side.
    #[arg(long)]
    dst: String,
    #[arg(long)]
    src_netns: String,
    #[arg(long)]
    src_tun: String,
    #[arg(long)]
    dst_netns: String,
    #[arg(long)]
    dst_tun: String,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn err<T>(what: &str) -> Result<T, String> {
    Err(format!("{what}: {}", std::io::Error::last_os_error()))
}

/// Opens TUN device `name` (IFF_TUN | IFF_NO_PI, non-blocking) inside namespace `netns`.
fn open_tun(netns: &str, name: &str) -> Result<OwnedFd, String> {
    if name.len() >= libc::IFNAMSIZ {
        return Err(format!("tun: {name} is too long (at most {} characters)", libc::IFNAMSIZ - 1));
    }
    let home = File::open("/proc/self/ns/net").map_err(|e| format!("/proc/self/ns/net: {e}"))?;
    let target = File::open(format!("/run/netns/{netns}")).map_err(|e| format!("netns {netns}: {e}"))?;
    // SAFETY: setns on this (single) thread with valid namespace fds; restored below.
    if unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return err(&format!("setns {netns}"));
    }
    let result = (|| {
        // SAFETY: plain open(2) of a constant path.
        let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if fd < 0 {
            return err("/dev/net/tun");
        }
        // SAFETY: fd was just opened and is owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: ifreq is plain old data; zeroed is a valid value.
        let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
        for (i, b) in name.bytes().enumerate() {
            ifr.ifr_name[i] = b as libc::c_char;
        }
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF with a valid ifreq.
        if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut ifr) } != 0 {
            return err(&format!("TUNSETIFF {name}"));
        }
        Ok(fd)
    })();
    // SAFETY: back to the namespace we started in.
    if unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return err("setns back");
    }
    result
}

fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Model time now: nanoseconds since the first IPv4 packet (0 until one has come).
fn model_now(t0: Option<u64>) -> u64 {
    t0.map_or(0, |t| mono_ns() - t)
}

/// Reads every packet waiting on `fd` into the path at model time (see [`model_now`]); the
/// first IPv4 packet of the run (the connection's SYN) starts the model clock, so that model time
/// 0 is when the transfer starts, as a simulated flow starts at 0: a rate schedule or a trace
/// (with its start offset) is then replayed against the transfer as the simulator replays it,
/// however long the namespaces, sink and source took to come up.
fn drain(fd: RawFd, path: &mut Path, t0: &mut Option<u64>, buf: &mut [u8]) -> Result<(), String> {
    loop {
        // SAFETY: buf is valid for its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(()),
                _ => Err(format!("read tun: {e}")),
            };
        }
        if n == 0 {
            return Ok(());
        }
        if t0.is_none() && ipv4_meta(&buf[..n as usize]).is_some() {
            *t0 = Some(mono_ns());
        }
        path.ingress(model_now(*t0), buf[..n as usize].to_vec());
    }
}

fn write_all(fd: RawFd, out: &mut Vec<(u64, Vec<u8>)>, written: &mut u64) {
    for (_, p) in out.drain(..) {
        // SAFETY: p is valid for its length. A failed write (device down at exit) loses the packet.
        if unsafe { libc::write(fd, p.as_ptr().cast(), p.len()) } == p.len() as isize {
            *written += 1;
        }
    }
}

fn run(a: Args) -> Result<(), String> {
    let text = std::fs::read_to_string(&a.scenario).map_err(|e| format!("{}: {e}", a.scenario.display()))?;
    let scenario = airtcp::scenario::parse(&text).map_err(|e| e.to_string())?;
    let seed = a.seed.unwrap_or(scenario.seed);
    let (mut fwd, mut rev) = paths(&scenario, seed, &a.src, &a.dst)?;
    let src = open_tun(&a.src_netns, &a.src_tun)?;
    let dst = open_tun(&a.dst_netns, &a.dst_tun)?;
    // SAFETY: installing a handler that only stores an atomic; 1-ns timer slack for precise wakeups.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::prctl(libc::PR_SET_TIMERSLACK, 1);
    }
    println!("ready");
    std::io::stdout().flush().ok();

    let mut t0: Option<u64> = None;
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::new();
    let (mut fwd_written, mut rev_written) = (0u64, 0u64);
    let mut fds = [
        libc::pollfd { fd: src.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: dst.as_raw_fd(), events: libc::POLLIN, revents: 0 },
    ];
    while !STOP.load(Ordering::SeqCst) {
        let now = model_now(t0);
        fwd.advance(now, &mut out);
        write_all(dst.as_raw_fd(), &mut out, &mut fwd_written);
        rev.advance(now, &mut out);
        write_all(src.as_raw_fd(), &mut out, &mut rev_written);
        let next = [fwd.next_event(), rev.next_event()].into_iter().flatten().min();
        let wait_ns = next.map_or(100_000_000, |t| t.saturating_sub(model_now(t0)).min(100_000_000));
        let ts = libc::timespec { tv_sec: (wait_ns / 1_000_000_000) as libc::time_t, tv_nsec: (wait_ns % 1_000_000_000) as _ };
        // SAFETY: valid pollfd array and timespec.
        let r = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        if r < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return err("ppoll");
        }
        if fds[0].revents & libc::POLLIN != 0 {
            drain(src.as_raw_fd(), &mut fwd, &mut t0, &mut buf)?;
        }
        if fds[1].revents & libc::POLLIN != 0 {
            drain(dst.as_raw_fd(), &mut rev, &mut t0, &mut buf)?;
        }
    }
    let hops = |p: &Path| -> Vec<serde_json::Value> {
        p.stats()
            .into_iter()
            .map(|(name, s)| {
                serde_json::json!({
                    "link": name, "packets_sent": s.packets_sent, "bytes_sent": s.bytes_sent,
                    "overflow_drops": s.overflow_drops, "early_drops": s.early_drops, "ce_marks": s.ce_marks,
                    "channel_losses": s.channel_losses, "corruptions": s.corruptions, "busy_ns": s.busy_ns,
                })
            })
            .collect()
    };
    let report = serde_json::json!({
        "forward": { "hops": hops(&fwd), "delivered": fwd_written, "not_ipv4": fwd.not_ipv4,
                     "corrupted_delivered": fwd.corrupted_delivered, "corrupted_dropped": fwd.corrupted_dropped },
        "reverse": { "hops": hops(&rev), "delivered": rev_written, "not_ipv4": rev.not_ipv4,
                     "corrupted_delivered": rev.corrupted_delivered, "corrupted_dropped": rev.corrupted_dropped },
        "elapsed_ns": model_now(t0),
        // When model time 0 was, on CLOCK_MONOTONIC (shared by every network namespace): a sink
        // timing its reads on that clock can count the bytes of a model-time window.
        "model_start_monotonic_ns": t0,
    });
    println!("{report}");
    Ok(())
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(args) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
