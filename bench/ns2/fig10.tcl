# ns-2.35 twin of examples/jersey_fig10.toml (TCP-Jersey Fig. 10): S -10Mb/45ms- BS -2Mb/1ms, lossy- D.
# Usage: ns fig10.tcl LOSS DURATION_S SEED [VARIANT: tahoe|reno|newreno|sack, default newreno]
set loss [lindex $argv 0]
set dur [lindex $argv 1]
set seed [lindex $argv 2]
set variant [expr {[llength $argv] > 3 ? [lindex $argv 3] : "newreno"}]
global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]
set S [$ns node]
set BS [$ns node]
set D [$ns node]
$ns duplex-link $S $BS 10Mb 45ms DropTail
$ns duplex-link $BS $D 2Mb 1ms DropTail
$ns queue-limit $S $BS 50
$ns queue-limit $BS $D 50
if {$loss > 0} {
    set em [new ErrorModel]
    $em set rate_ $loss
    $em unit pkt
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $BS $D
}
switch $variant {
    tahoe   { set tcp [new Agent/TCP];         set sink [new Agent/TCPSink] }
    reno    { set tcp [new Agent/TCP/Reno];    set sink [new Agent/TCPSink] }
    newreno { set tcp [new Agent/TCP/Newreno]; set sink [new Agent/TCPSink] }
    sack    { set tcp [new Agent/TCP/Sack1];   set sink [new Agent/TCPSink/Sack1] }
}
$tcp set packetSize_ 1000
$tcp set window_ 1000
$tcp set minrto_ 0.2
$ns attach-agent $S $tcp
$ns attach-agent $D $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
proc finish {} {
    global tcp dur
    puts "acked_pkts [$tcp set ack_] goodput_bps [expr [$tcp set ack_] * 8000.0 / $dur]"
    exit 0
}
$ns at $dur "finish"
$ns run
