# ns-2.35 twin of examples/jersey_fig10.toml (TCP-Jersey Fig. 10): S -10Mb/45ms- BS -2Mb/1ms, lossy- D.
# Usage: ns fig10.tcl LOSS DURATION_S SEED [VARIANT [WARMUP_S [WINDOW]]]
#   VARIANT: tahoe | reno | newreno (default) | sack (Sack1) | fack (Fack, Sack1 sink) | vegas
#            | westwood-plus (TCP-Linux `select_ca westwood`, Sack1 sink echoing timestamps)
#   WARMUP_S: start of the goodput window of goodput_warm_bps (default 10, the scenario's warmup)
#   WINDOW: every agent's `window_`, the cap on its send window in packets (default 1000, as
#           common.tcl sets it; 20 is ns-2.35's own default; airtcp's `rwnd_pkts`)
# Prints one line (key value pairs; the first four fields are as they always were):
#   acked_pkts A goodput_bps G goodput_warm_bps W timeouts T rexmitpkts R fast_retransmits F drops D
# goodput_bps: the sender's view, cumulative ACK over [0, DURATION] (TCP-Jersey's measure);
# goodput_warm_bps: in-order payload delivered at the sink over [WARMUP, DURATION] (airtcp's
# `goodput_bps`); timeouts = nrexmit_ (Fack: rises of backoff_, below); rexmitpkts = nrexmitpack_; fast_retransmits = ncwndcuts_ -
# nrexmit_; drops = packets the BS->D queue dropped (queue monitor).
# Agent settings as bench/ns2/dumbbell.tcl documents (matched to airtcp's defaults and scenario):
# packetSize_ 1000, window_ 1000 (or WINDOW), windowInit_ 1, minrto_ 0.2, maxrto_ 60, rtxcur_init_ 1.0,
# tcpTick_ 0.001, syn_ false (no handshake, as airtcp; common.tcl says why), singledup_ 1 (limited transmit; the Fack and Vegas agents have their own
# duplicate-ACK handling without it), numdupacks_ 3, maxburst_ 0, no delayed ACKs.
# Vegas: v_alpha_ 1, v_beta_ 3, v_gamma_ 1 (ns-2 defaults = airtcp's), with its fine-grained
# retransmission on the 1st/2nd duplicate ACK (airtcp `expiry = true`) and Reno-style recovery.
# The loss model sits after the BS->D link's delay (`link-lossmodel`): lost packets were serialized.
set loss [lindex $argv 0]
set dur [lindex $argv 1]
set seed [lindex $argv 2]
set variant [expr {[llength $argv] > 3 ? [lindex $argv 3] : "newreno"}]
set warmup [expr {[llength $argv] > 4 ? [lindex $argv 4] : 10.0}]
set window [expr {[llength $argv] > 5 ? [lindex $argv 5] : 1000}]
global defaultRNG
source [file join [file dirname [info script]] seeds.tcl]
seed_rng $defaultRNG 12345 $seed
set ns [new Simulator]

source [file join [file dirname [info script]] common.tcl]
# After common.tcl's `window_ 1000`, before the agents are made (each agent class inherits it).
Agent/TCP set window_ $window

set S [$ns node]
set BS [$ns node]
set D [$ns node]
$ns duplex-link $S $BS 10Mb 45ms DropTail
$ns duplex-link $BS $D 2Mb 1ms DropTail
$ns queue-limit $S $BS 50
$ns queue-limit $BS $S 50
$ns queue-limit $BS $D 50
$ns queue-limit $D $BS 50
set qmon [$ns monitor-queue $BS $D ""]
if {$loss > 0} {
    set em [new ErrorModel]
    $em set rate_ $loss
    $em unit pkt
    $em ranvar [new RandomVariable/Uniform]
    $ns link-lossmodel $em $BS $D
    $em drop-target [new Agent/Null]
}
lassign [make_agents $variant] tcp sink
$ns attach-agent $S $tcp
$ns attach-agent $D $sink
# ns-2.35's Fack agent does not count its timeouts in nrexmit_: count the rises of its RTO backoff
# (every expiry doubles backoff_, the next new ACK resets it to 1), as a variable trace.
set botrace ""
if {$variant == "fack"} {
    set botrace [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}]/airtcp-ns2-fig10-[pid].tr
    set botf [open $botrace w]
    $tcp attach $botf
    $tcp trace backoff_
}
proc timeouts {} {
    global tcp botrace botf
    if {$botrace == ""} { return [$tcp set nrexmit_] }
    close $botf
    set f [open $botrace r]
    set n 0; set prev 1
    while {[gets $f line] >= 0} {
        set v [lindex $line end]
        if {$v > $prev} { incr n }
        set prev $v
    }
    close $f
    file delete $botrace
    return $n
}
$ns connect $tcp $sink
if {$variant == "westwood-plus"} { $ns at 0 "$tcp select_ca westwood" }
if {$variant == "linux-reno"} { $ns at 0 "$tcp select_ca reno" }
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
# TCPSink's bytes_ counts in-order bytes in wire size (1040 B per 1000-B segment, + 10 B with
# timestamps).
set base 0
proc snapshot {} { global sink base; set base [$sink set bytes_] }
proc finish {} {
    global tcp sink dur warmup base qmon
    set wire [expr {1040 + ([$tcp set timestamps_] ? [$tcp set ts_option_size_] : 0)}]
    set warm [expr {$dur > $warmup ? ([$sink set bytes_] - $base) * 8.0 * 1000 / $wire / ($dur - $warmup) : 0.0}]
    set t [timeouts]
    puts "acked_pkts [$tcp set ack_] goodput_bps [expr [$tcp set ack_] * 8000.0 / $dur] goodput_warm_bps $warm timeouts $t rexmitpkts [$tcp set nrexmitpack_] fast_retransmits [expr {[$tcp set ncwndcuts_] - $t}] drops [$qmon set pdrops_]"
    exit 0
}
if {$warmup < $dur} { $ns at $warmup "snapshot" }
$ns at $dur "finish"
$ns run
