# Independent replications for the ns-2.35 twins. ns-2.35's `$rng seed N` sets every component of
# MRG32k3a's state to N, so the streams of seeds 1, 2, 3, ... are scaled copies of one another: the
# first uniform draw of seed N is 0.00034 N (seed 1: 0.000340, 2: 0.000674, 3: 0.001008), and a
# 0.1% loss model drops an early packet under every low seed alike (on Fig. 10 that loss ends the
# first slow start early, 16 queue drops instead of about 75, in every one of seeds 1-5). ns-2's
# manual (ch. 25, "Random Number Generation") gives substreams for independent replications: seed
# the generator once and take the SEED-th substream (substreams are 2^76 draws apart).
proc seed_rng {rng base seed} {
    $rng seed $base
    for {set i 0} {$i < $seed} {incr i} { $rng next-substream }
}
