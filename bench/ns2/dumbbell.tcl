# ns-2.35 twin of experiments/jersey/manyflows.toml (TCP-Jersey Table I path, 20 flows):
#   S -100 Mb/s 45 ms, DropTail 1000- R -20 Mb/s 1 ms, QUEUE of 100, uniform loss on R->D data- D
# 20 FTP flows S->D, 1000-B segments, flows start 10 ms apart (flow k at k*10 ms), goodput =
# in-order bytes delivered at each sink over [WARMUP, DURATION] (airtcp's `warmup`, default 20 s).
#
# Usage: ns dumbbell.tcl LOSS DURATION_S SEED VARIANT QUEUE [WARMUP_S] [FLOWS]
#   VARIANT: reno | newreno | sack (Sack1 + TCPSink/Sack1) | westwood-plus (TCP-Linux westwood)
#            | linux-reno (TCP-Linux with its reno module: tells the port's machinery from Westwood+)
#   QUEUE:   droptail (100 packets) | red (RED, the numbers below, limit 100)
#            | cw (RED set up as TCP-Jersey's CW on non-ECN traffic: drop while avg >= 100/3)
#   Environment: RED_MIN RED_MAX RED_W RED_MAXP RED_MEANPKT override the RED numbers (bench/validate_ns2.py
#   passes the ones it gives airtcp, so that both sides use the same).
# Prints one line per flow and a total line (key value pairs):
#   flow I goodput_bps G timeouts T rexmitpkts R cwndcuts C
#   total goodput_bps G timeouts T rexmitpkts R fast_retransmits F drops D
# timeouts = nrexmit_ (RTO expiries with data outstanding), rexmitpkts = nrexmitpack_,
# fast_retransmits = ncwndcuts_ - nrexmit_ (every window cut is a timeout or a fast retransmit:
# no ECN here), drops = packets the R->D queue dropped (queue monitor: overflow + RED early).
#
# Settings matched to the airtcp scenario (ns-2.35 defaults queried with `puts [Agent/TCP set X]`):
#   packetSize_ 1000          = mss_bytes 1000 (both add 40 B of TCP/IP header: 1040 B on the wire)
#   window_ 1000              = rwnd_pkts 1000 (ns-2 default 20)
#   windowInit_ 1             = initial_cwnd_pkts 1 (airtcp default; ns-2 default 2)
#   minrto_ 0.2               = min_rto 200ms (ns-2 default 0.2 already)
#   maxrto_ 60                = max_rto 60s (ns-2 default)
#   rtxcur_init_ 1.0          = initial_rto 1s (airtcp default; ns-2 default 3.0)
#   tcpTick_ 0.001            = clock_granularity 1ms (airtcp default; ns-2 default 0.01)
#   singledup_ 1              = limited_transmit = true (ns-2 default; the scenario sets it)
#   numdupacks_ 3             = dupack_threshold 3
#   maxburst_ 0               = no burst limit (airtcp has none)
#   TCPSink (no delayed ACK)  = delayed_ack = false
#   timestamps_ false         = timestamps = false (except TCP-Linux, below)
#   ssthresh: ns-2 starts at window_ (1000), airtcp effectively infinite: same, the window caps it.
#   Agent/TCP/Newreno (newreno_changes1_ 1, the default) resets the RTO timer on the first partial
#   ACK only = partial_ack_timer "impatient".
#   syn_ false                = no handshake: airtcp starts with data (common.tcl says why)
# Not matched: ns-2's option sizes (timestamps 10 B on data and none on ACKs, airtcp 12 B on both;
# a SACK block 8 B on both sides, ns-2 without the option's 2-B header; the ACK path is unloaded
# here); Sack1's and TCP-Linux's recoveries are not RFC 6675.
# westwood-plus: ns-2.35's TCP-Linux (Agent/TCP/Linux, `select_ca westwood`: Linux 2.6's
#   tcp_westwood.c, which is Westwood+) with its recommended TCPSink/Sack1 receiver echoing
#   timestamps (ts_echo_rfc1323_); the port's own loss recovery (scoreboard1.cc, tcp-linux.cc).
#   airtcp side: cc westwood-plus with Linux's filter (cc_params alpha 7/8, min_interval 50 ms =
#   TCP_WESTWOOD_RTT_MIN), recovery "linux" (that port's recovery: FACK loss marking, lost
#   retransmissions resent, its rate halving, no recover guard) with rto_restart "every-ack"
#   (the agent restarts its timer on every ACK, duplicates too), limited_transmit off (the agent
#   does not use singledup_), sack and timestamps on. (TCP-Linux counts its timeouts in nrexmit_.)
# The loss model is inserted after the R->D link's delay (`link-lossmodel`): a lost packet has been
# serialized, as airtcp's channel losses are; it is not a queue drop.

set loss [lindex $argv 0]
set dur [lindex $argv 1]
set seed [lindex $argv 2]
set variant [lindex $argv 3]
set qkind [lindex $argv 4]
set warmup [expr {[llength $argv] > 5 ? [lindex $argv 5] : 20.0}]
set nflows [expr {[llength $argv] > 6 ? [lindex $argv 6] : 20}]
proc envor {name dflt} { global env; if {[info exists env($name)]} { return $env($name) }; return $dflt }
set red_min [envor RED_MIN 15]
set red_max [envor RED_MAX 45]
set red_w [envor RED_W 0.002]
set red_maxp [envor RED_MAXP 0.1]

global defaultRNG
source [file join [file dirname [info script]] seeds.tcl]
seed_rng $defaultRNG 12345 $seed
set jrng [new RNG]
seed_rng $jrng 54321 $seed
set ns [new Simulator]

source [file join [file dirname [info script]] common.tcl]

# RED in packets (ns-2 defaults count bytes), drop not mark, no "wait" between drops (Floyd &
# Jacobson's count spacing as airtcp's red.rs), idle decay with 500-B typical packets (both).
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set setbit_ false
Queue/RED set wait_ false
Queue/RED set mean_pktsize_ [envor RED_MEANPKT 500]
switch $qkind {
    droptail { set bq DropTail }
    red {
        set bq RED
        Queue/RED set thresh_ $red_min
        Queue/RED set maxthresh_ $red_max
        Queue/RED set q_weight_ $red_w
        Queue/RED set linterm_ [expr {1.0 / $red_maxp}]
        Queue/RED set gentle_ false
    }
    cw {
        # TCP-Jersey's CW queue (airtcp `kind = "cw"`, limit 100, weight 0.2, threshold 100/3)
        # drops every non-ECT arrival while the EWMA queue is at or above the threshold: RED with
        # max_p 1 and a vanishing ramp above the threshold, not gentle. At ns-2.35's default
        # `use_mark_p_ true` RED takes no forced drop above maxthresh_ (`red.cc` `enque`): the first
        # arrival after the average crosses passes untested (`edv_.old`), the later ones meet
        # drop_early's p = 1 (airtcp `rules = "ns2"` does the same since issue 38).
        set bq RED
        Queue/RED set thresh_ [expr {100.0 / 3.0}]
        Queue/RED set maxthresh_ [expr {100.0 / 3.0 + 1e-6}]
        Queue/RED set q_weight_ 0.2
        Queue/RED set linterm_ 1
        Queue/RED set gentle_ false
    }
    default { puts stderr "unknown queue $qkind"; exit 1 }
}

set S [$ns node]
set R [$ns node]
set D [$ns node]
$ns duplex-link $S $R 100Mb 45ms DropTail
$ns duplex-link $R $D 20Mb 1ms $bq
$ns queue-limit $S $R 1000
$ns queue-limit $R $S 1000
$ns queue-limit $R $D 100
$ns queue-limit $D $R 100
set qmon [$ns monitor-queue $R $D ""]

set channel_losses 0
if {$loss > 0} {
    set em [new ErrorModel]
    $em set rate_ $loss
    $em unit pkt
    $em ranvar [new RandomVariable/Uniform]
    $ns link-lossmodel $em $R $D
    # Not to the link's drop head: the queue monitor counts queue drops only.
    set lossdrop [new Agent/Null]
    $em drop-target $lossdrop
}

for {set i 0} {$i < $nflows} {incr i} {
    lassign [make_agents $variant] tcp($i) sink($i)
    $tcp($i) set fid_ $i
    $ns attach-agent $S $tcp($i)
    $ns attach-agent $D $sink($i)
    $ns connect $tcp($i) $sink($i)
    if {$variant == "westwood-plus"} { $ns at 0 "$tcp($i) select_ca westwood" }
    if {$variant == "linux-reno"} { $ns at 0 "$tcp($i) select_ca reno" }
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    # Optional per-seed start offsets (env JITTER_MS, airtcp's `start_jitter`): uniform in
    # [0, JITTER_MS) from a stream of its own, so the loss and RED draws are unchanged.
    set jit 0.0
    if {[info exists env(JITTER_MS)]} { set jit [expr {[$jrng uniform 0 $env(JITTER_MS)] / 1000.0}] }
    $ns at [expr {$i * 0.01 + $jit}] "$ftp($i) start"
}

# In-order bytes delivered at the sinks: TCPSink's bytes_ counts what its acker delivers in order,
# in wire bytes (payload + 40 B of headers + 10 B of timestamp option with timestamps_): scaled to
# payload below.
proc snapshot {} {
    global sink nflows base
    for {set i 0} {$i < $nflows} {incr i} { set base($i) [$sink($i) set bytes_] }
}
proc finish {} {
    global tcp sink nflows base dur warmup qmon
    set tg 0; set tt 0; set tr 0; set tc 0
    for {set i 0} {$i < $nflows} {incr i} {
        set wire [expr {[$tcp($i) set packetSize_] + 40 + ([$tcp($i) set timestamps_] ? [$tcp($i) set ts_option_size_] : 0)}]
        set g [expr {([$sink($i) set bytes_] - $base($i)) * 8.0 * [$tcp($i) set packetSize_] / $wire / ($dur - $warmup)}]
        set t [$tcp($i) set nrexmit_]
        set r [$tcp($i) set nrexmitpack_]
        set c [$tcp($i) set ncwndcuts_]
        puts "flow $i goodput_bps $g timeouts $t rexmitpkts $r cwndcuts $c"
        set tg [expr {$tg + $g}]; incr tt $t; incr tr $r; incr tc $c
    }
    puts "total goodput_bps $tg timeouts $tt rexmitpkts $tr fast_retransmits [expr {$tc - $tt}] drops [$qmon set pdrops_]"
    exit 0
}
$ns at $warmup "snapshot"
$ns at $dur "finish"
$ns run
