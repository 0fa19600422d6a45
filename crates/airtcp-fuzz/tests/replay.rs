//! The fuzz targets on the stable toolchain, for CI (issue 25 part 6: "CI runs a short slice of
//! each"): every committed input of `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/` is
//! replayed, then a short deterministic slice of new inputs is run — seeded random bytes for the
//! structured targets (every byte string is a valid receiver or sender input), seeded mutations
//! of the corpus's scenarios for the scenario target. A few seconds in all in the `test` profile;
//! `AIRTCP_FUZZ_ITERATIONS=<n>` multiplies the slices (and `AIRTCP_FUZZ_SEED=<n>` moves them) for
//! a longer search without libFuzzer.

use std::path::{Path, PathBuf};

use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The repository's `fuzz/` folder.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The committed inputs of a target, corpus then regressions, each sorted by name.
fn committed(target: &str) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for sub in ["corpus", "regressions"] {
        let Ok(dir) = std::fs::read_dir(fuzz_dir().join(sub).join(target)) else { continue };
        let mut files: Vec<PathBuf> = dir.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
        files.sort();
        all.extend(files);
    }
    all
}

/// How many times the default slices to run (`AIRTCP_FUZZ_ITERATIONS`, default 1).
fn scale() -> usize {
    std::env::var("AIRTCP_FUZZ_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(1)
}

/// The slices' PRNG, seeded per target (`AIRTCP_FUZZ_SEED` moves every seed).
fn rng(target: &str) -> Xoshiro256PlusPlus {
    let base: u64 = std::env::var("AIRTCP_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let salt = target.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    Xoshiro256PlusPlus::seed_from_u64(base ^ salt)
}

/// Runs `target` on `data`, naming `what` (a file, or a slice input written out) if it panics.
fn run_one(name: &str, target: fn(&[u8]), data: &[u8], what: &dyn Fn() -> String) {
    if std::panic::catch_unwind(|| target(data)).is_err() {
        let out = fuzz_dir().join("artifacts").join(name);
        let _ = std::fs::create_dir_all(&out);
        let file = out.join(format!("replay-{:016x}", fnv(data)));
        let _ = std::fs::write(&file, data);
        panic!(
            "{name}: finding on {} (written to {}; reproduce with `cargo run --profile test -p airtcp-fuzz --example replay -- {name} FILE`)",
            what(),
            file.display()
        );
    }
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn target(name: &str) -> fn(&[u8]) {
    airtcp_fuzz::TARGETS.iter().find(|(n, _)| *n == name).expect("a target").1
}

fn replay_committed(name: &str) {
    let files = committed(name);
    assert!(!files.is_empty(), "no committed inputs for {name} in {}", fuzz_dir().display());
    for f in files {
        let data = std::fs::read(&f).unwrap();
        run_one(name, target(name), &data, &|| f.display().to_string());
    }
}

/// Random byte strings of up to `max_len` bytes.
fn random_slice(name: &str, inputs: usize, max_len: usize) {
    let mut rng = rng(name);
    for k in 0..inputs * scale() {
        let mut data = vec![0u8; rng.random_range(0..=max_len)];
        rng.fill_bytes(&mut data);
        run_one(name, target(name), &data, &|| format!("random input {k}"));
    }
}

#[test]
fn scenario_committed_inputs() {
    replay_committed("scenario");
}

#[test]
fn receiver_committed_inputs() {
    replay_committed("receiver");
}

#[test]
fn sender_committed_inputs() {
    replay_committed("sender");
}

#[test]
fn receiver_random_slice() {
    random_slice("receiver", 3000, 1024);
}

#[test]
fn sender_random_slice() {
    random_slice("sender", 3000, 1024);
}

/// Values a mutation puts in place of a scenario value: other types, extremes, odd units.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    "5e-324",
    "nan",
    "inf",
    "-0.0",
    "true",
    "\"\"",
    "\"0s\"",
    "\"1ns\"",
    "\"0.000000001s\"",
    "\"10000000s\"",
    "\"18446744073s\"",
    "\"0bps\"",
    "\"1bps\"",
    "\"100Gbps\"",
    "\"0B\"",
    "\"1B\"",
    "\"reno\"",
    "\"sack\"",
    "\"both\"",
    "\"\u{1f600}\"",
    "\"\\u0000\"",
    "\"a\\nb\"",
    "[]",
    "[1, \"a\"]",
    "{}",
    "{ kind = \"red\" }",
    "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]",
    "1979-05-27T07:32:00Z",
];

/// One random edit of a scenario text: a value replaced, a line deleted or duplicated, a
/// character inserted, bytes flipped, or two seeds spliced.
fn mutate(text: &mut String, seeds: &[String], rng: &mut Xoshiro256PlusPlus) {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        text.push_str(&seeds[rng.random_range(0..seeds.len())]);
        return;
    }
    let i = rng.random_range(0..lines.len());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match rng.random_range(0..7) {
        0 | 1 => {
            if let Some((key, _)) = out[i].split_once('=') {
                out[i] = format!("{key}= {}", EXTREMES[rng.random_range(0..EXTREMES.len())]);
            }
        }
        2 => {
            out.remove(i);
        }
        3 => {
            let l = out[i].clone();
            out.insert(i, l);
        }
        4 => {
            let chars = ['"', '[', ']', '{', '}', '=', ',', '#', '\\', '\n', '\u{0}', '\u{feff}', 'é', '\u{10ffff}'];
            let at =
                (0..=out[i].len()).filter(|&k| out[i].is_char_boundary(k)).nth(rng.random_range(0..=out[i].chars().count())).unwrap_or(0);
            out[i].insert(at, chars[rng.random_range(0..chars.len())]);
        }
        5 => {
            let other = &seeds[rng.random_range(0..seeds.len())];
            let o: Vec<&str> = other.lines().collect();
            let j = rng.random_range(0..=o.len());
            out.truncate(i);
            out.extend(o[j..].iter().map(|l| l.to_string()));
        }
        _ => {
            let mut bytes = out[i].clone().into_bytes();
            if !bytes.is_empty() {
                let k = rng.random_range(0..bytes.len());
                bytes[k] ^= 1 << rng.random_range(0..8);
            }
            out[i] = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    *text = out.join("\n");
}

#[test]
fn scenario_mutation_slice() {
    let seeds: Vec<String> = committed("scenario")
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seed-")))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(!seeds.is_empty(), "no seed scenarios in fuzz/corpus/scenario");
    let mut rng = rng("scenario");
    for k in 0..400 * scale() {
        let mut text = seeds[rng.random_range(0..seeds.len())].clone();
        for _ in 0..rng.random_range(1..=4) {
            mutate(&mut text, &seeds, &mut rng);
        }
        run_one("scenario", target("scenario"), text.as_bytes(), &|| format!("mutated scenario {k}"));
    }
}
