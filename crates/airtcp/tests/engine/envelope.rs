//! The IE²-TCP envelope (thesis §2.4) bounds every scheme in the project: on the thesis's own
//! chapter-2 topology (2 Mb/s wireless bottleneck, RTT 60 ms, 1-KB segments, window 15) at 1%,
//! 2% and 4% uniform loss its goodput is at least every other scheme's.

use crate::common::{fig10, mean_sd, variant};

const SEEDS: u64 = 5;

/// Every window policy with the loss recovery it is usually run with, plus each recovery with Reno.
const SCHEMES: &[(&str, &str)] = &[
    ("tahoe", "reno"),
    ("reno", "reno"),
    ("newreno", "reno"),
    ("sack", "reno"),
    ("fack", "reno"),
    ("newreno", "westwood"),
    ("newreno", "westwood-plus"),
    ("newreno", "vegas"),
    ("newreno", "prairie"),
    ("newreno", "caiad"),
    ("reno", "jersey"),
    ("reno", "new-jersey"),
    ("reno", "nj+"),
];

/// Thesis §2.3.1 scenario 1 on our Fig. 10 builder: 29 ms + 1 ms each way (RTT 60 ms), window
/// 15 segments, 100 s with the 10-s warm-up.
fn goodput(loss: f64, recovery: &str, cc: &str) -> f64 {
    let needs = match cc {
        "jersey" => "ecn = true",
        "new-jersey" | "nj+" => "ecn = true\ntimestamps = true",
        _ => "",
    };
    let g: Vec<f64> = (1..=SEEDS)
        .map(|sd| {
            let text =
                variant(&fig10(loss, recovery, 50, 100, &format!("rwnd_pkts = 15\ncc = \"{cc}\"\n{needs}")), &["links.0.delay=29ms"]);
            airtcp::run(&text, &airtcp::RunOptions { seed: Some(sd), ..Default::default() }).map(Option::unwrap).unwrap().summary.flows[0]
                .goodput_bps
        })
        .collect();
    mean_sd(&g).0
}

#[test]
fn ie2_envelope_is_at_least_as_fast_as_every_scheme() {
    for loss in [0.01, 0.02, 0.04] {
        let envelope = goodput(loss, "sack", "ie2-envelope");
        let mut best = (0.0, "");
        for &(rec, cc) in SCHEMES {
            let g = goodput(loss, rec, cc);
            eprintln!("{:.0}%: {rec}/{cc} {:.0} kb/s", loss * 100.0, g / 1e3);
            assert!(envelope >= g, "{}%: {rec}/{cc} {g} above the envelope {envelope}", loss * 100.0);
            if g > best.0 {
                best = (g, cc);
            }
        }
        let sack = goodput(loss, "sack", "reno");
        eprintln!(
            "{:.0}%: IE2 envelope {:.0} kb/s = {:.2} × SACK; best scheme {} {:.0} kb/s",
            loss * 100.0,
            envelope / 1e3,
            envelope / sack,
            best.1,
            best.0 / 1e3
        );
    }
}

/// The envelope's precise domain (cc/ie2.rs, "When it is a bound"): on TCP-Jersey's Fig. 10 path
/// (10 Mb/s 45 ms + 2 Mb/s 1 ms, 50-packet queues, pipe ≈ 23 segments of 1000 B) it bounds every
/// scheme for every receiver window up to the pipe, at low, middle and high loss.
#[test]
fn ie2_envelope_bounds_the_fig10_grid_up_to_the_pipe() {
    let fig10_goodput = |loss: f64, rwnd: u32, recovery: &str, cc: &str| -> f64 {
        let needs = match cc {
            "jersey" => "ecn = true",
            "new-jersey" | "nj+" => "ecn = true\ntimestamps = true",
            _ => "",
        };
        let g: Vec<f64> = (1..=3)
            .map(|sd| {
                let text = fig10(loss, recovery, 50, 100, &format!("rwnd_pkts = {rwnd}\ncc = \"{cc}\"\n{needs}"));
                airtcp::run(&text, &airtcp::RunOptions { seed: Some(sd), ..Default::default() }).map(Option::unwrap).unwrap().summary.flows
                    [0]
                .goodput_bps
            })
            .collect();
        mean_sd(&g).0
    };
    for rwnd in [10, 15, 23] {
        for loss in [0.001, 0.01, 0.05] {
            let envelope = fig10_goodput(loss, rwnd, "sack", "ie2-envelope");
            for &(rec, cc) in SCHEMES {
                let g = fig10_goodput(loss, rwnd, rec, cc);
                // Goodput counts whole segments delivered in the 90-s window: where the window
                // limits every scheme alike (rwnd 10) two of them may end one segment apart.
                let one_segment_bps = 1000.0 * 8.0 / 90.0;
                assert!(envelope + one_segment_bps >= g, "rwnd {rwnd}, {}%: {rec}/{cc} {g} above the envelope {envelope}", loss * 100.0);
            }
        }
    }
}

/// Beyond the pipe it is not one, for the reason cc/ie2.rs gives: with rwnd 60 on the same path the
/// pinned window's releases overflow the sender's queue at every loss (drops on S → BS even at
/// 0.1%), which a window up to the pipe never does.
#[test]
fn ie2_envelope_overflows_its_own_queue_beyond_the_pipe() {
    let drops = |rwnd: u32| {
        let text = fig10(0.001, "sack", 50, 100, &format!("rwnd_pkts = {rwnd}\ncc = \"ie2-envelope\""));
        airtcp::run(&text, &airtcp::RunOptions { seed: Some(1), ..Default::default() }).map(Option::unwrap).unwrap().summary.links[0]
            .overflow_drops
    };
    assert_eq!(drops(23), 0);
    assert!(drops(60) > 100, "{}", drops(60));
}
