// ns-3 twin of the dumbbell scenarios that bench/validate_ns3.py writes for airtcp:
//   S_i --100 Mb/s, (1+i) ms-- R1 --10 Mb/s, 20 ms-- R2 --100 Mb/s, 1 ms-- D_i,  i = 0..flows-1
// one bulk TCP flow S_i -> D_i starting at i * spacing seconds, MSS 1000 B, no channel loss.
// The bottleneck R1->R2 is either a DropTail queue of `buffer` packets or RED (+ ECN) with the
// given parameters; every other one-way link is DropTail: `buffer` packets on R2->R1, 100 packets
// on the access links (they never fill).
// Usage: dumbbell --queue=droptail|red --run=1 --cc=newreno|westwood-plus|vegas --duration=60
//                 --warmup=10 [--flows=10 --buffer=64 --minTh=10 --maxTh=30 --qw=0.002 --maxP=0.1
//                 --ecn=1]
// Prints one JSON line (twin.h, RunAndReport) with the bottleneck's drop/mark counts.
//
// DropTail: the point-to-point device's DropTailQueue holds `buffer` waiting packets (the one
// being serialized has left it), which is airtcp's limit_pkts; no queue disc anywhere.
// RED: a RedQueueDisc over a device queue of 1 packet. A packet waits in the device queue while
// the previous one is serialized, so the queue disc is given `buffer - 1` packets: the total
// waiting room equals airtcp's limit_pkts, and RED sees the waiting packets less the one in the
// device slot (airtcp's RED sees all waiting packets).
#include "twin.h"

using namespace ns3;

static void
CountDrop(uint64_t* n, Ptr<const Packet>)
{
    ++*n;
}

int
main(int argc, char* argv[])
{
    std::string queue = "droptail";
    uint32_t run = 1;
    std::string cc = "newreno";
    double duration = 60;
    double warmup = 10;
    uint32_t flows = 10;
    uint32_t buffer = 64;
    double spacing = 0.1;
    double minTh = 10;
    double maxTh = 30;
    double qw = 0.002;
    double maxP = 0.1;
    bool ecn = true;
    bool gentle = false;
    uint32_t mss = 1000;
    CommandLine cmd(__FILE__);
    cmd.AddValue("queue", "bottleneck queue: droptail or red", queue);
    cmd.AddValue("run", "RNG run number (the seed)", run);
    cmd.AddValue("cc", "newreno, westwood-plus or vegas", cc);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "goodput is measured over [warmup, duration]", warmup);
    cmd.AddValue("flows", "number of sender/receiver pairs", flows);
    cmd.AddValue("buffer", "bottleneck buffer in packets", buffer);
    cmd.AddValue("spacing", "flow i starts at i * spacing seconds", spacing);
    cmd.AddValue("minTh", "RED min threshold (packets)", minTh);
    cmd.AddValue("maxTh", "RED max threshold (packets)", maxTh);
    cmd.AddValue("qw", "RED EWMA weight", qw);
    cmd.AddValue("maxP", "RED max_p (LInterm = 1/maxP)", maxP);
    cmd.AddValue("ecn", "RED marks ECT packets and TCP is ECN-capable", ecn);
    cmd.AddValue("gentle", "gentle RED", gentle);
    bool timestamps = false;
    cmd.AddValue("timestamps", "RFC 7323 timestamps (RTT samples on every ACK in both simulators)", timestamps);
    cmd.Parse(argc, argv);
    bool red = queue == "red";
    NS_ABORT_MSG_IF(!red && queue != "droptail", "--queue must be droptail or red");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    twin::ConfigureTcp(cc, red && ecn, mss, 1000, timestamps);

    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(receivers);
    stack.Install(routers);

    auto pkts = [](uint32_t n) { return QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, n)); };
    Ipv4AddressHelper addr;
    TrafficControlHelper none;

    // Bottleneck R1 -> R2 (device 0) and R2 -> R1 (device 1).
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("20ms"));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", pkts(buffer));
    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    if (red)
    {
        DynamicCast<PointToPointNetDevice>(core.Get(0))->GetQueue()->SetMaxSize(QueueSize("1p"));
    }
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(core);
    none.Uninstall(core);
    Ptr<QueueDisc> redQd;
    if (red)
    {
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", pkts(buffer - 1),
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "QW", DoubleValue(qw),
                             "LInterm", DoubleValue(1.0 / maxP),
                             "Gentle", BooleanValue(gentle),
                             "Wait", BooleanValue(false),
                             "UseEcn", BooleanValue(ecn),
                             "UseHardDrop", BooleanValue(true),
                             "MeanPktSize", UintegerValue(500),
                             "LinkBandwidth", DataRateValue(DataRate("10Mbps")),
                             "LinkDelay", TimeValue(MilliSeconds(20)));
        redQd = tch.Install(core.Get(0)).Get(0);
    }

    std::vector<Ipv4Address> dstAddr;
    for (uint32_t i = 0; i < flows; ++i)
    {
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
        access.SetQueue("ns3::DropTailQueue", "MaxSize", pkts(100));
        access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(1 + i)));
        NetDeviceContainer a = access.Install(senders.Get(i), routers.Get(0));
        addr.SetBase(Ipv4Address((10u << 24) | ((1 + i) << 8)), "255.255.255.0");
        addr.Assign(a);
        none.Uninstall(a);
        access.SetChannelAttribute("Delay", StringValue("1ms"));
        NetDeviceContainer b = access.Install(routers.Get(1), receivers.Get(i));
        addr.SetBase(Ipv4Address((10u << 24) | ((101 + i) << 8)), "255.255.255.0");
        dstAddr.push_back(addr.Assign(b).GetAddress(1));
        none.Uninstall(b);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<twin::FlowStats> stats(flows);
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        sinks.push_back(twin::BulkFlow(senders.Get(i), receivers.Get(i), dstAddr[i], 5000 + i,
                                       i * spacing, duration, mss, &stats[i], i));
    }
    Ptr<PointToPointNetDevice> r1r2 = DynamicCast<PointToPointNetDevice>(core.Get(0));
    // Without a queue disc, a full device queue stops it and the traffic-control layer drops the
    // packet instead of the queue: count those (R1's only congested device is R1->R2).
    uint64_t tcDrops = 0;
    routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeBoundCallback(&CountDrop, &tcDrops));
    twin::RunAndReport(sinks, warmup, duration, [&]() {
        uint64_t devDrops = r1r2->GetQueue()->GetTotalDroppedPackets();
        uint64_t early = 0, forced = 0, overflow = 0, marks = 0;
        if (redQd)
        {
            const QueueDisc::Stats& st = redQd->GetStats();
            early = st.GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP);
            forced = st.GetNDroppedPackets(RedQueueDisc::FORCED_DROP);
            overflow = st.nTotalDroppedPackets - early - forced;
            marks = st.nTotalMarkedPackets;
        }
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      ", \"bottleneck_overflow_drops\": %lu, \"bottleneck_early_drops\": %lu, "
                      "\"bottleneck_ce_marks\": %lu",
                      (unsigned long)(devDrops + tcDrops + overflow), (unsigned long)(early + forced),
                      (unsigned long)marks);
        return std::string(buf) + twin::StatsJson(stats);
    });
    return 0;
}
