# ns-2.35 twin of experiments/prairie/scenario1.toml: FH -10Mb/29ms- BS -2Mb/1ms, lossy- MH, window 15.
# Usage: [SINGLEDUP=0|1] ns thesis_scenario1.tcl LOSS DURATION_S SEED VARIANT(tahoe|reno|newreno|sack|fack|vegas) [ACKLOSS 0|1]
# Prints goodput, timeouts (nrexmit_: every RTO expiry with data outstanding) and ncwndcuts_
# (every slowdown: timeouts + fast retransmits). SINGLEDUP sets singledup_ (limited transmit; ns-2.35 default 1).
set loss [lindex $argv 0]
set dur [lindex $argv 1]
set seed [lindex $argv 2]
set variant [lindex $argv 3]
set ackloss [expr {[llength $argv] > 4 ? [lindex $argv 4] : 0}]
global defaultRNG
# Independent replications: substream SEED of one seeded generator (seeds.tcl says why `seed N` is not).
source [file join [file dirname [info script]] seeds.tcl]
seed_rng $defaultRNG 12345 $seed
set ns [new Simulator]
set S [$ns node]
set BS [$ns node]
set D [$ns node]
$ns duplex-link $S $BS 10Mb 29ms DropTail
$ns duplex-link $BS $D 2Mb 1ms DropTail
$ns queue-limit $S $BS 50
$ns queue-limit $BS $D 50
proc em {loss} {
    set em [new ErrorModel]
    $em set rate_ $loss
    $em unit pkt
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    return $em
}
if {$loss > 0} {
    $ns lossmodel [em $loss] $BS $D
    if {$ackloss} { $ns lossmodel [em $loss] $D $BS }
}
source [file join [file dirname [info script]] agents.tcl]
lassign [make_agents $variant] tcp sink
$tcp set packetSize_ 1000
$tcp set window_ 15
$tcp set minrto_ 0.2
if {[info exists env(SINGLEDUP)]} { $tcp set singledup_ $env(SINGLEDUP) }
$ns attach-agent $S $tcp
$ns attach-agent $D $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
proc finish {} {
    global tcp dur
    puts "goodput_kbps [expr [$tcp set ack_] * 8.0 / $dur] timeouts [$tcp set nrexmit_] cwndcuts [$tcp set ncwndcuts_] rexmitpkts [$tcp set nrexmitpack_] datapkts [$tcp set ndatapack_]"
    exit 0
}
$ns at $dur "finish"
$ns run
