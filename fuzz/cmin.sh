#!/usr/bin/env bash
# Merges what fuzz/run.sh found (fuzz/corpus-tmp/<target>/) into the committed corpus
# fuzz/corpus/<target>/, keeping the smallest set of inputs that covers as much as all of them
# (libFuzzer -merge=1 as `cargo fuzz cmin` does, by edge coverage only, -use_counters=0, so that
# the committed corpus stays small):  fuzz/cmin.sh scenario|receiver|sender
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/cmin.sh scenario|receiver|sender}
case "$target" in
    scenario) max_len=16384 ;;
    *) max_len=4096 ;;
esac
mkdir -p "fuzz/corpus-tmp/$target"
new="fuzz/corpus-new/$target"
rm -rf "$new" && mkdir -p "$new"
cargo +nightly fuzz run -O "$target" "$new" "fuzz/corpus/$target" "fuzz/corpus-tmp/$target" -- \
    -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
# keep the seeds (named seed-*) whatever the merge kept: they document where the corpus started
# (libFuzzer names merged inputs by their SHA-1: drop those copies of the seeds)
for seed in fuzz/corpus/"$target"/seed-*; do
    [ -f "$seed" ] || continue
    rm -f "$new/$(sha1sum "$seed" | cut -d' ' -f1)"
    cp "$seed" "$new"/
done
rm -rf "fuzz/corpus/$target" && mv "$new" "fuzz/corpus/$target" && rmdir fuzz/corpus-new 2>/dev/null || true
echo "fuzz/corpus/$target: $(ls "fuzz/corpus/$target" | wc -l) inputs, $(du -sh "fuzz/corpus/$target" | cut -f1)"
