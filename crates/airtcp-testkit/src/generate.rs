//! The generator: the designated combination of each run and the scenario text around it.

use crate::parts::*;

use airtcp::engine::RngStream;

/// Recovery strategies, in `tcp::recovery::NAMES` order.
pub(crate) fn recoveries() -> &'static [&'static str] {
    airtcp::tcp::recovery::NAMES
}

/// Queue disciplines of the designated link.
pub(crate) const QUEUES: [&str; 3] = ["droptail", "red", "cw"];

/// Channel kinds (the designated link's channel is one of these with one of two effects).
pub(crate) const CHANNELS: [&str; 5] = ["none", "uniform", "gilbert-elliott-packet", "gilbert-elliott-time", "fading"];

/// Capacity kinds; HSDPA takes no channel (the cell models its own radio errors).
pub(crate) const CAPACITIES: [&str; 4] = ["constant", "schedule", "trace", "hsdpa"];

/// (capacity, channel, corruption) variants of the designated link: every capacity but HSDPA
/// with no channel or one of the four channel kinds with either effect (3 × 9), and HSDPA.
pub(crate) const LINK_VARIANTS: usize = 3 * 9 + 1;

/// The combinations the designated flow and link cycle through: window policy × recovery ×
/// queue × link variant.
pub fn combinations() -> u64 {
    (airtcp::cc::NAMES.len() * recoveries().len() * QUEUES.len() * LINK_VARIANTS) as u64
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The combination of run `index`: `index · k mod n` with `k` coprime to `n` (about n/φ), a
/// bijection on every n consecutive indices that spreads a short slice over all digits.
pub(crate) fn combination(index: u64) -> Designated {
    let n = combinations();
    let mut k = (n as f64 * 0.618_033_988_749_895) as u64 | 1;
    while gcd(k, n) != 1 {
        k += 2;
    }
    let mut c = ((index % n) as u128 * k as u128 % n as u128) as usize;
    let mut digit = |m: usize| {
        let d = c % m;
        c /= m;
        d
    };
    let cc = digit(airtcp::cc::NAMES.len());
    let recovery = digit(recoveries().len());
    let queue = digit(QUEUES.len());
    let variant = digit(LINK_VARIANTS);
    let (capacity, channel, corruption) =
        if variant == 27 { (3, 0, false) } else { (variant / 9, (variant % 9).div_ceil(2), variant % 9 % 2 == 0 && variant % 9 > 0) };
    Designated { combo: (index % n) as usize, cc, recovery, queue, capacity, channel, corruption }
}

/// What the run's first flow and link take from its combination (indices into the lists above).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Designated {
    pub(crate) combo: usize,
    pub(crate) cc: usize,
    pub(crate) recovery: usize,
    pub(crate) queue: usize,
    pub(crate) capacity: usize,
    pub(crate) channel: usize,
    pub(crate) corruption: bool,
}

/// One generated scenario.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its index in the campaign (with the campaign seed, all it takes to regenerate it).
    pub index: u64,
    /// The run's seed (also written as the scenario's `seed`, so the text alone reproduces it).
    pub seed: u64,
    /// The scenario file.
    pub toml: String,
    /// Coverage categories this scenario exercises (for the campaign's coverage counts).
    pub tags: Vec<String>,
    /// The combination index of its designated flow and link (see [`combinations`]).
    pub combo: usize,
    /// Per one-way link in build order: whether it has a constant capacity (its utilization is a
    /// busy fraction, at most 1; a schedule's or trace's is measured against its mean rate).
    pub constant_links: Vec<bool>,
    /// Per one-way link in build order: its queue's limit in packets, which the sampled queue
    /// length never exceeds (0 for an HSDPA cell, whose limit is per UE).
    pub queue_limits: Vec<u64>,
    /// Whether the duration is a whole number of sample intervals: the last sample is then at
    /// the end, after every other event there, and must read the summary's totals.
    pub sample_at_end: bool,
    /// Whether to repeat the run event by event (cut-through off) and compare.
    pub cut_check: bool,
}

/// Generates run `index` of the campaign seeded `campaign_seed`.
pub fn case(campaign_seed: u64, index: u64) -> Case {
    let mut g = Gen(RngStream::new(campaign_seed, &format!("campaign:{index}")));
    let d = combination(index);
    let seed = g.int(0, u32::MAX as u64);
    let mut tags: Vec<String> = Vec::new();
    // Mostly 1–5 s, in whole milliseconds or not; now and then a very short run.
    let duration_us = match g.int(0, 19) {
        0 => g.log_int(1, 100_000),
        1..=13 => g.int(1_000, 5_000) * 1000,
        _ => g.int(1_000_000, 5_000_000),
    };
    let mut s = format!("name = \"campaign-{index}\"\nseed = {seed}\nduration = {}\n", us(duration_us));
    // A third of the runs sample at their very end.
    let sample_us = if g.chance(0.33) {
        let divisors: Vec<u64> = (1..=2000).filter(|k| duration_us % k == 0 && (duration_us / k >= 1_000 || *k == 1)).collect();
        duration_us / g.pick(&divisors)
    } else {
        g.log_int(1_000, 10_000_000)
    };
    s += &format!("sample_interval = {}\n", us(sample_us));
    if g.boolean() {
        s += &format!("warmup = {}\n", us(g.int(0, duration_us - 1)));
    }
    // Topology: n0 - n1 (the designated link), a random tree over the other nodes, and sometimes
    // a link that closes a cycle (one-way or duplex).
    let n = g.int(2, 5) as usize;
    tags.push(format!("topology:{n}-nodes"));
    s += &format!("nodes = [{}]\n", (0..n).map(|i| format!("\"n{i}\"")).collect::<Vec<_>>().join(", "));
    let mut edges: Vec<(usize, usize, bool)> = vec![(0, 1, true)];
    for i in 2..n {
        let parent = g.int(0, i as u64 - 1) as usize;
        edges.push(if g.boolean() { (parent, i, true) } else { (i, parent, true) });
    }
    if n >= 3 && g.chance(0.3) {
        let (a, b) = (g.int(0, n as u64 - 1) as usize, g.int(0, n as u64 - 1) as usize);
        if a != b && !edges.iter().any(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a)) {
            let duplex = g.chance(0.6);
            edges.push((a, b, duplex));
            tags.push(if duplex { "topology:cycle".into() } else { "topology:one-way-link".into() });
        }
    }
    let (mut constant_links, mut queue_limits) = (Vec::new(), Vec::new());
    for (li, &(a, b, duplex)) in edges.iter().enumerate() {
        s += &format!("[[links]]\nfrom = \"n{a}\"\nto = \"n{b}\"\ndelay = {}\n", us(if g.chance(0.1) { 0 } else { g.log_int(1, 50_000) }));
        if !duplex {
            s += "duplex = false\n";
        }
        let (cap_kind, chan_kind, corruption, queue_kind) = if li == 0 {
            (d.capacity, d.channel, d.corruption, d.queue)
        } else {
            let cap = if g.chance(0.7) { 0 } else { g.int(1, 2) as usize };
            let chan = g.int(0, 4) as usize;
            (cap, chan, g.boolean(), g.int(0, 2) as usize)
        };
        let hsdpa = cap_kind == 3;
        let (q, qtag, limit) = queue(&mut g, queue_kind);
        s += &format!("queue = {q}\n");
        tags.push(format!("queue:{qtag}"));
        let mut reverse_limit = limit;
        if duplex && g.chance(0.2) {
            let kind = g.int(0, 2) as usize;
            let (rq, rtag, l) = queue(&mut g, kind);
            s += &format!("reverse_queue = {rq}\n");
            tags.push(format!("queue:{rtag}"));
            reverse_limit = l;
        }
        tags.push(format!("capacity:{}", CAPACITIES[cap_kind]));
        let mut reverse_constant = cap_kind == 0;
        if hsdpa {
            s += &format!(
                "capacity = {{ kind = \"hsdpa\", scheduler = \"{}\", max_ues_per_tti = {}, harq_max_tx = {}, sdu_discard = {} }}\n",
                g.pick(&["pf", "rr", "max_ci"]),
                g.int(1, 4),
                g.int(1, 4),
                us(g.log_int(20_000, 1_000_000))
            );
            let kind = if g.chance(0.7) { 0 } else { g.int(1, 2) as usize };
            s += &capacity(&mut g, "reverse_capacity", kind);
            reverse_constant = kind == 0;
        } else {
            s += &capacity(&mut g, "capacity", cap_kind);
            if duplex && g.chance(0.15) {
                let kind = g.int(0, 2) as usize;
                s += &capacity(&mut g, "reverse_capacity", kind);
                tags.push(format!("capacity:{}", CAPACITIES[kind]));
                reverse_constant = kind == 0;
            }
            s += &format!("channel = {}\n", channel(&mut g, chan_kind, corruption, 0.3));
            tags.push(format!("channel:{}", CHANNELS[chan_kind]));
            if chan_kind > 0 {
                tags.push(format!("effect:{}", if corruption { "corruption" } else { "loss" }));
            }
        }
        if duplex && g.chance(0.4) {
            let (kind, corrupt) = (g.int(1, 4) as usize, g.boolean());
            s += &format!("reverse_channel = {}\n", channel(&mut g, kind, corrupt, 0.1));
            tags.push(format!("channel:{}", CHANNELS[kind]));
            tags.push(format!("effect:{}", if corrupt { "corruption" } else { "loss" }));
        }
        if g.chance(0.2) {
            s += &format!(
                "link_retransmission = true\nlink_retransmission_max = {}\nlink_retransmission_timeout = {}\n",
                g.int(1, 10),
                us(g.log_int(1_000, 200_000))
            );
            tags.push("link:retransmission".into());
        }
        // An HSDPA cell's utilization is its busy TTIs' share, at most 1 like a constant rate's.
        constant_links.push(cap_kind == 0 || hsdpa);
        queue_limits.push(if hsdpa { 0 } else { limit });
        if duplex {
            constant_links.push(reverse_constant);
            queue_limits.push(reverse_limit);
        }
    }
    // Flows: the designated TCP flow n0 -> n1, then up to three more of any kind.
    let cc = airtcp::cc::NAMES[d.cc];
    let recovery = recoveries()[d.recovery];
    let (f0, mut tcp_flows) = tcp_flow(&mut g, "f0", 0, 1, cc, recovery, duration_us, true, &mut tags);
    s += &f0;
    tags.push(format!("cc:{cc}"));
    tags.push(format!("recovery:{recovery}"));
    tags.push("traffic:tcp".into());
    for k in 1..=g.int(0, 3) {
        let src = g.int(0, n as u64 - 1) as usize;
        let dst = (src + g.int(1, n as u64 - 1) as usize) % n;
        let name = format!("f{k}");
        if g.chance(0.65) && tcp_flows < 6 {
            let (cc, rec) = (g.pick(airtcp::cc::NAMES), g.pick(recoveries()));
            let (text, flows) = tcp_flow(&mut g, &name, src, dst, cc, rec, duration_us, false, &mut tags);
            s += &text;
            tcp_flows += flows;
            tags.push(format!("cc:{cc}"));
            tags.push(format!("recovery:{rec}"));
            tags.push("traffic:tcp".into());
        } else {
            let (text, tag) = udp_flow(&mut g, &name, src, dst, duration_us);
            s += &text;
            tags.push(format!("traffic:{tag}"));
        }
    }
    tags.sort();
    tags.dedup();
    let sample_at_end = duration_us % sample_us == 0;
    if sample_at_end {
        tags.push("sampling:last-sample-at-end".into());
    }
    Case { index, seed, toml: s, tags, combo: d.combo, constant_links, queue_limits, sample_at_end, cut_check: true }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The combination map is a bijection on any `combinations()` consecutive indices, and a
    /// short slice already takes every value of each part.
    #[test]
    fn combinations_are_a_bijection() {
        let n = combinations();
        assert_eq!(n, 8064, "the module docs count the combinations");
        let key = |d: Designated| (d.cc, d.recovery, d.queue, d.capacity, d.channel, d.corruption);
        let distinct: std::collections::HashSet<_> = (17..17 + n).map(|i| key(combination(i))).collect();
        assert_eq!(distinct.len() as u64, n);
        let slice: Vec<Designated> = (0..300).map(combination).collect();
        assert_eq!(slice.iter().map(|d| d.cc).collect::<std::collections::HashSet<_>>().len(), airtcp::cc::NAMES.len());
        assert_eq!(slice.iter().map(|d| d.recovery).collect::<std::collections::HashSet<_>>().len(), recoveries().len());
        assert_eq!(
            slice.iter().map(|d| (d.capacity, d.channel, d.corruption)).collect::<std::collections::HashSet<_>>().len(),
            LINK_VARIANTS
        );
    }

    /// A case is a pure function of (campaign seed, index).
    #[test]
    fn cases_are_reproducible() {
        assert_eq!(case(3, 41).toml, case(3, 41).toml);
        assert_ne!(case(3, 41).toml, case(4, 41).toml);
    }
}
