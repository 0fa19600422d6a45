# The ns-2.35 sender agent and sink of each scheme, shared by the twins (fig10.tcl and dumbbell.tcl
# through common.tcl, thesis_scenario1.tcl directly, which keeps ns-2's own agent defaults).

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
            # The port runs its modules' growth with Appropriate Byte Counting on
            # (tcp/linux/ns-linux-param.c: sysctl_tcp_abc = 1; airtcp westwood-plus cc_params
            # growth = "linux-ns2"). Env LINUX_ABC=0 turns it off for a diagnosis (a global of the
            # port, set through its parameter table: an int written over the unsigned char, whose
            # three following bytes are 0 in Debian's ns 2.35, so 0 and 1 are safe). Unset: unchanged.
            global env
            if {[info exists env(LINUX_ABC)]} { $tcp set_ca_default_param linux sysctl_tcp_abc $env(LINUX_ABC) }
            set sink [new Agent/TCPSink/Sack1]
            $sink set ts_echo_rfc1323_ true
        }
        default { puts stderr "unknown variant $variant"; exit 1 }
    }
    return [list $tcp $sink]
}
