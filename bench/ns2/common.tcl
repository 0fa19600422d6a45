# Shared by the ns-2.35 twins fig10.tcl and dumbbell.tcl (sourced after `set ns [new Simulator]`):
# the agent settings both match on the airtcp side (bench/validate_ns2.py COMMON) and the agent
# and sink of each scheme (agents.tcl).

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
# No 40-B SYN before the data (ns-2's default `syn_ true`): airtcp's flows start with data. The SYN
# is not harmless to a twin: its RTT sample (no 1000-B serialization at 2 Mb/s: 92 ms instead of
# 97 ms on Fig. 10) is TCP-Linux Westwood+'s least SRTT, so its RTT_min stays 5% low for the whole
# run and every window set from BWE·RTT_min with it; on Fig. 10 at 3% loss that cost ns-2's
# Westwood+ a fifth of its goodput (10 seeds: 1.05 Mb/s with the SYN, 1.27 without).
Agent/TCP set syn_ false

source [file join [file dirname [info script]] agents.tcl]
