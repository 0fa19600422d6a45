# Shared by the ns-2.35 twins fig10.tcl and dumbbell.tcl (sourced after `set ns [new Simulator]`):
# the agent settings both match on the airtcp side (bench/validate_ns2.py COMMON) and the agent
# and sink of each scheme.

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 1000
Agent/TCP set windowInit_ 1
Agent/TCP set minrto_ 0.2
Agent/TCP set maxrto_ 60
Agent/TCP set rtxcur_init_ 1.0
Agent/TCP set tcpTick_ 0.001
Agent/TCP set singledup_ 1
Agent/TCP set numdupacks_ 3
Agent/TCP set maxburst_ 0

# A new sender agent and its sink for scheme `variant`, as the list {tcp sink}.
proc make_agents {variant} {
    switch $variant {
        tahoe   { set tcp [new Agent/TCP];         set sink [new Agent/TCPSink] }
        reno    { set tcp [new Agent/TCP/Reno];    set sink [new Agent/TCPSink] }
        newreno { set tcp [new Agent/TCP/Newreno]; set sink [new Agent/TCPSink] }
        sack    { set tcp [new Agent/TCP/Sack1];   set sink [new Agent/TCPSink/Sack1] }
        fack    { set tcp [new Agent/TCP/Fack];    set sink [new Agent/TCPSink/Sack1] }
        vegas   {
            # ns-2.35's Vegas output() leaves out the 40 B of headers the other agents add: 1040-B
            # packets carry the same 1000-B payload (goodput counts 1000 B per packet).
            set tcp [new Agent/TCP/Vegas];   set sink [new Agent/TCPSink]
            $tcp set packetSize_ 1040
        }
        linux-reno - westwood-plus {
            set tcp [new Agent/TCP/Linux]
            $tcp set timestamps_ true
            set sink [new Agent/TCPSink/Sack1]
            $sink set ts_echo_rfc1323_ true
        }
        default { puts stderr "unknown variant $variant"; exit 1 }
    }
    return [list $tcp $sink]
}
