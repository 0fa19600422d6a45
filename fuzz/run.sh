#!/usr/bin/env bash
# Runs one cargo-fuzz target for SECONDS (default 60) of wall time, alone (one process, one job):
#   fuzz/run.sh scenario|receiver|sender [SECONDS]
# from the repository root; needs the nightly toolchain and cargo-fuzz (`make fuzz` installs it).
# New inputs go to fuzz/corpus-tmp/<target>/ (not committed); the committed fuzz/corpus/<target>/
# seeds the run. Findings are written to fuzz/artifacts/<target>/ (reproduce on stable with
# `cargo run --profile test -p airtcp-fuzz --example replay -- <target> FILE`). Limits: 10 s per
# input, 2 GiB of memory. FUZZ_TIMEOUT_S overrides the 10 s: on a machine loaded well past its
# cores, a starved run of a millisecond input can pass 10 s of wall time and be reported as a
# libFuzzer "timeout" (replay such an input on stable to tell). The last lines are libFuzzer's
# final statistics (executions, peak RSS).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh scenario|receiver|sender [SECONDS]}
seconds=${2:-60}
case "$target" in
    scenario) extra=(-max_len=16384 -dict=fuzz/scenario.dict) ;;
    receiver | sender) extra=(-max_len=4096) ;;
    *) echo "error: unknown fuzz target '$target' (allowed: scenario, receiver, sender)" >&2; exit 2 ;;
esac
mkdir -p "fuzz/corpus-tmp/$target" "fuzz/corpus/$target"
exec cargo +nightly fuzz run -O "$target" "fuzz/corpus-tmp/$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT_S:-10}" -rss_limit_mb=2048 -print_final_stats=1 "${extra[@]}"
