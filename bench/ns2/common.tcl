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

source [file join [file dirname [info script]] agents.tcl]
