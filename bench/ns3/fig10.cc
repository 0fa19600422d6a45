// ns-3 twin of examples/jersey_fig10.toml (TCP-Jersey Fig. 10):
//   S --10 Mb/s, 45 ms-- BS --2 Mb/s, 1 ms, uniform packet loss on BS->D-- D
// one bulk TCP flow S->D, DropTail buffers of 50 packets on every one-way link, MSS 1000 B.
// Usage: fig10 --loss=0.01 --run=1 --cc=newreno|westwood-plus|vegas --duration=100 --warmup=10
// Prints one JSON line (twin.h, RunAndReport).
//
// Queues: the point-to-point device's DropTailQueue holds `buffer` waiting packets (the one being
// serialized has left it), which is airtcp's limit_pkts; no queue disc is installed (the default
// one that Ipv4AddressHelper::Assign adds is removed), so nothing else buffers.
#include "twin.h"

using namespace ns3;

/// Counts a drop; with TWIN_DROP_LOG set, also prints its time to stderr.
static void
CountDrop(uint64_t* n, Ptr<const Packet>)
{
    ++*n;
    if (std::getenv("TWIN_DROP_LOG"))
    {
        std::fprintf(stderr, "drop %.6f\n", Simulator::Now().GetSeconds());
    }
}

int
main(int argc, char* argv[])
{
    double loss = 0.01;
    uint32_t run = 1;
    std::string cc = "newreno";
    double duration = 100;
    double warmup = 10;
    uint32_t buffer = 50;
    uint32_t mss = 1000;
    CommandLine cmd(__FILE__);
    cmd.AddValue("loss", "packet loss probability on BS->D", loss);
    cmd.AddValue("run", "RNG run number (the seed)", run);
    cmd.AddValue("cc", "newreno, westwood-plus or vegas", cc);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "goodput is measured over [warmup, duration]", warmup);
    cmd.AddValue("buffer", "DropTail limit in packets of every one-way link", buffer);
    bool timestamps = false;
    cmd.AddValue("timestamps", "RFC 7323 timestamps (RTT samples on every ACK in both simulators)", timestamps);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    twin::ConfigureTcp(cc, false, mss, 1000, timestamps);

    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> s = nodes.Get(0);
    Ptr<Node> bs = nodes.Get(1);
    Ptr<Node> d = nodes.Get(2);

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, buffer)));
    p2p.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("45ms"));
    NetDeviceContainer sBs = p2p.Install(s, bs);
    p2p.SetDeviceAttribute("DataRate", StringValue("2Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1ms"));
    NetDeviceContainer bsD = p2p.Install(bs, d);

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.1.0", "255.255.255.0");
    addr.Assign(sBs);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer ifBsD = addr.Assign(bsD);
    TrafficControlHelper tch;
    tch.Uninstall(sBs);
    tch.Uninstall(bsD);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Uniform loss of data packets on the wireless hop: a receive error model on D's device.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(loss);
    em->Enable();
    if (loss > 0)
    {
        bsD.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }

    std::vector<twin::FlowStats> stats(1);
    std::vector<Ptr<PacketSink>> sinks{
        twin::BulkFlow(s, d, ifBsD.GetAddress(1), 5000, 0.0, duration, mss, &stats[0], 0)};
    // Without a queue disc, a full device queue stops it and the traffic-control layer drops the
    // packet instead of the queue: count those at S (S->BS) and BS (BS->D, BS->S).
    uint64_t sDrops = 0, bsDrops = 0;
    s->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeBoundCallback(&CountDrop, &sDrops));
    bs->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeBoundCallback(&CountDrop, &bsDrops));
    Ptr<PointToPointNetDevice> wl = DynamicCast<PointToPointNetDevice>(bsD.Get(0));
    Ptr<PointToPointNetDevice> wired = DynamicCast<PointToPointNetDevice>(sBs.Get(0));
    twin::RunAndReport(sinks, warmup, duration, [&]() {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      ", \"bs_d_queue_drops\": %u, \"s_bs_queue_drops\": %u",
                      (unsigned)(wl->GetQueue()->GetTotalDroppedPackets() + bsDrops),
                      (unsigned)(wired->GetQueue()->GetTotalDroppedPackets() + sDrops));
        return std::string(buf) + twin::StatsJson(stats);
    });
    return 0;
}
