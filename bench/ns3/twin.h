// Shared settings of the ns-3 twins of airtcp scenarios (bench/ns3/fig10.cc, bench/ns3/dumbbell.cc).
//
// Every setting that airtcp's TCP model fixes or defaults is set here explicitly, so the two
// simulators run the same protocol (see VALIDATION.md, "Settings"):
//   - segment size = mss_bytes payload (1000 B); no timestamps, no SACK, classic (RFC 5681/6582)
//     fast recovery, no limited transmit (airtcp has none), ACK every segment (airtcp's
//     delayed_ack = false), initial cwnd 1 segment, initial ssthresh "infinite" (ns-3 default),
//     min RTO 200 ms, clock granularity 1 ms (airtcp's default), receive window 1000 segments,
//     and a send buffer large enough never to limit the sender.
//   - Vegas: airtcp's alpha/beta/gamma = 1/3/1 segments compare a real-valued
//     diff = cwnd (1 - BaseRTT/RTT) in segments; ns-3's TcpVegas compares the integer
//     diff = cwnd - floor(cwnd BaseRTT/minRTT) = ceil(real diff). "ceil(d) < 2" is "d <= 1",
//     "ceil(d) > 3" is "d > 3", "ceil(d) > 1" is "d > 1", so ns-3's Alpha/Beta/Gamma = 2/3/1 are
//     airtcp's 1/3/1 (ns-3 Alpha = 1 would grow only when minRTT == BaseRTT exactly).
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <cstdio>
#include <string>
#include <vector>

namespace twin
{
using namespace ns3;

/// A diagnostic variant of ns-3's TcpWestwoodPlus (VALIDATION.md finding 6): the same estimator,
/// fed by Mascolo et al.'s AckedCount (airtcp's `cc::estimators::AckedCount`) instead of the segment
/// counts `TcpSocketBase::ProcessAck` passes. ns-3 3.44 counts every duplicate ACK as one segment
/// and then, on the ACK that ends fast recovery, the whole jump ackNumber - oldHeadSequence again
/// (its comment there says the count should run from m_recover). Here a duplicate ACK counts one
/// segment, and a cumulative ACK what the duplicates did not already count (at least one
/// segment). The cumulative point is read from `m_lastAckedSeq`, which ProcessAck sets first.
class TcpWestwoodPlusAckedCount : public TcpWestwoodPlus
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TwinTcpWestwoodPlusAckedCount")
                                .SetParent<TcpWestwoodPlus>()
                                .AddConstructor<TcpWestwoodPlusAckedCount>();
        return tid;
    }

    TcpWestwoodPlusAckedCount() = default;

    TcpWestwoodPlusAckedCount(const TcpWestwoodPlusAckedCount& o)
        : TcpWestwoodPlus(o),
          m_prevAck(o.m_prevAck),
          m_havePrev(o.m_havePrev),
          m_accounted(o.m_accounted)
    {
    }

    std::string GetName() const override
    {
        return "TwinTcpWestwoodPlusAckedCount";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpWestwoodPlusAckedCount>(this);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segments, const Time& rtt) override
    {
        SequenceNumber32 ack = tcb->m_lastAckedSeq;
        uint32_t count = segments;
        if (m_havePrev)
        {
            if (ack == m_prevAck)
            {
                m_accounted += 1; // a duplicate ACK: one segment reached the receiver
                count = 1;
            }
            else
            {
                uint32_t acked = (ack - m_prevAck) / tcb->m_segmentSize;
                if (acked <= m_accounted)
                {
                    m_accounted -= acked;
                    count = std::min<uint32_t>(acked, 1);
                }
                else
                {
                    count = acked - m_accounted;
                    m_accounted = 0;
                }
            }
        }
        m_prevAck = ack;
        m_havePrev = true;
        TcpWestwoodPlus::PktsAcked(tcb, count, rtt);
    }

  private:
    SequenceNumber32 m_prevAck{0};
    bool m_havePrev = false;
    uint32_t m_accounted = 0; // segments counted through duplicate ACKs, not yet cumulatively acked
};

/// A diagnostic variant of ns-3's TcpNewReno (VALIDATION.md finding 5): ssthresh at a fast
/// retransmit is FlightSize/2 (RFC 5681 eq. 4, as airtcp computes it). ns-3 3.44's EnterRecovery
/// passes BytesInFlight() + 1 segment, and with SACK off BytesInFlight() already leaves out the
/// emulated-SACKed segment and the lost head, so its ssthresh is (FlightSize - 1 segment)/2. The
/// missing segment is added back here only in CA_RECOVERY (EnterRecovery sets the state first);
/// timeouts and ECN keep ns-3's rule.
class TcpNewRenoFlightSize : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TwinTcpNewRenoFlightSize")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<TcpNewRenoFlightSize>();
        return tid;
    }

    TcpNewRenoFlightSize() = default;

    TcpNewRenoFlightSize(const TcpNewRenoFlightSize& o)
        : TcpNewReno(o)
    {
    }

    std::string GetName() const override
    {
        return "TwinTcpNewRenoFlightSize";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpNewRenoFlightSize>(this);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        if (tcb->m_congState == TcpSocketState::CA_RECOVERY)
        {
            bytesInFlight += tcb->m_segmentSize;
        }
        return TcpNewReno::GetSsThresh(tcb, bytesInFlight);
    }
};

/// A diagnostic recovery for ns-3 (VALIDATION.md finding 5): TcpClassicRecovery whose window
/// also counts the duplicate ACKs that arrived before the fast retransmit. With SACK off and
/// limited transmit off, ns-3 3.44's DupAck() adds no Reno SACK in CA_DISORDER, and EnterRecovery
/// adds one, so its pipe (BytesInFlight) still holds DupThresh - 1 segments that RFC 5681 §3.2
/// step 3 counts as gone ("cwnd = ssthresh + 3*SMSS ... the number of segments (three) that have
/// left the network"). ns-3 sends during recovery while pipe < cwnd = ssthresh; raising cwnd by
/// those segments here for the recovery (the socket sets cwnd = ssthresh again on exit) makes it
/// send what RFC 5681's inflation sends. Turning ns-3's LimitedTransmit on instead is not a clean
/// test: it also sends on those duplicate ACKs.
class TcpClassicRecoveryDisorder : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TwinTcpClassicRecoveryDisorder")
                                .SetParent<TcpClassicRecovery>()
                                .AddConstructor<TcpClassicRecoveryDisorder>();
        return tid;
    }

    TcpClassicRecoveryDisorder() = default;

    TcpClassicRecoveryDisorder(const TcpClassicRecoveryDisorder& o)
        : TcpClassicRecovery(o)
    {
    }

    std::string GetName() const override
    {
        return "TwinTcpClassicRecoveryDisorder";
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<TcpClassicRecoveryDisorder>(this);
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        TcpClassicRecovery::EnterRecovery(tcb, dupAckCount, unAckDataCount, deliveredBytes);
        if (dupAckCount > 1)
        {
            tcb->m_cWnd = tcb->m_cWnd + (dupAckCount - 1) * tcb->m_segmentSize;
        }
    }
};

inline TypeId
CcTypeId(const std::string& cc)
{
    if (cc == "newreno-flightsize" || cc == "newreno-flightsize-disorder")
    {
        return TcpNewRenoFlightSize::GetTypeId();
    }
    if (cc == "westwood-plus-ackedcount")
    {
        return TcpWestwoodPlusAckedCount::GetTypeId();
    }
    if (cc == "newreno" || cc == "reno")
    {
        return TcpNewReno::GetTypeId();
    }
    if (cc == "westwood-plus" || cc == "westwoodplus")
    {
        return TcpWestwoodPlus::GetTypeId();
    }
    if (cc == "vegas")
    {
        return TcpVegas::GetTypeId();
    }
    NS_FATAL_ERROR("unknown --cc " << cc << " (newreno, westwood-plus, vegas, westwood-plus-ackedcount, newreno-flightsize, newreno-flightsize-disorder)");
    return TypeId();
}

inline void
ConfigureTcp(const std::string& cc, bool ecn, uint32_t mss, uint32_t rwndPkts, bool timestamps = false)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(CcTypeId(cc)));
    // "-disorder": the diagnostic recovery above (finding 5); otherwise ns-3's classic recovery.
    const bool disorder = cc.ends_with("-disorder");
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(disorder ? TcpClassicRecoveryDisorder::GetTypeId()
                                            : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwndPkts * mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 * rwndPkts * mss));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));
    Config::SetDefault("ns3::TcpVegas::Alpha", UintegerValue(2));
    Config::SetDefault("ns3::TcpVegas::Beta", UintegerValue(3));
    Config::SetDefault("ns3::TcpVegas::Gamma", UintegerValue(1));
}

/// Sender-side counters of one flow, filled from the socket's trace sources.
struct FlowStats
{
    uint64_t dataSent = 0;        // data segments put on the wire
    uint64_t retransmissions = 0; // data segments at or below the highest sequence already sent
    uint64_t recoveries = 0;      // entries into CA_RECOVERY (fast retransmits)
    uint64_t timeouts = 0;        // entries into CA_LOSS (retransmission timeouts)
    uint64_t ecnReductions = 0;   // entries into CA_CWR
    SequenceNumber32 highSent{0};
    bool any = false;
    FILE* cwndLog = nullptr;      // optional "time cwnd ssthresh" trace (TWIN_CWND_LOG=prefix)
    uint32_t ssthresh = 0;
    FILE* bwLog = nullptr;        // optional "time bps" trace of TcpWestwoodPlus::EstimatedBW
};

/// Reads TcpSocketBase's protected congestion-control pointer (a diagnostic only: ns-3 has no
/// public getter, and the estimate lives in the congestion-control object, not the socket).
struct CcPeek : TcpSocketBase
{
    static Ptr<TcpCongestionOps> Of(Ptr<TcpSocketBase> s)
    {
        return (*PeekPointer(s)).*(&CcPeek::m_congestionControl);
    }
};

inline void
OnBw(FlowStats* st, DataRate, DataRate now)
{
    std::fprintf(st->bwLog, "%.6f %lu\n", Simulator::Now().GetSeconds(), (unsigned long)now.GetBitRate());
}

inline void
OnTx(FlowStats* st, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    st->dataSent++;
    if (st->any && h.GetSequenceNumber() < st->highSent)
    {
        st->retransmissions++;
    }
    if (!st->any || h.GetSequenceNumber() > st->highSent)
    {
        st->highSent = h.GetSequenceNumber();
        st->any = true;
    }
}

inline void
OnCongState(FlowStats* st, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        st->recoveries++;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        st->timeouts++;
    }
    else if (now == TcpSocketState::CA_CWR)
    {
        st->ecnReductions++;
    }
}

inline void
OnCwnd(FlowStats* st, uint32_t, uint32_t now)
{
    std::fprintf(st->cwndLog, "%.6f %u %u\n", Simulator::Now().GetSeconds(), now, st->ssthresh);
}

inline void
OnSsth(FlowStats* st, uint32_t, uint32_t now)
{
    st->ssthresh = now;
}

/// Connects `st` to the sender socket of `app` (call after the application started).
inline void
Instrument(Ptr<Application> app, FlowStats* st, int index)
{
    Ptr<Socket> sock = DynamicCast<BulkSendApplication>(app)->GetSocket();
    sock->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, st));
    sock->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, st));
    if (const char* prefix = std::getenv("TWIN_CWND_LOG"))
    {
        std::string name = std::string(prefix) + std::to_string(index) + ".txt";
        st->cwndLog = std::fopen(name.c_str(), "w");
        sock->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsth, st));
        sock->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, st));
        // Westwood+: its filtered bandwidth estimate too ("time bps", PREFIX<i>-bw.txt).
        Ptr<TcpCongestionOps> ops = CcPeek::Of(DynamicCast<TcpSocketBase>(sock));
        if (DynamicCast<TcpWestwoodPlus>(ops))
        {
            st->bwLog = std::fopen((std::string(prefix) + std::to_string(index) + "-bw.txt").c_str(), "w");
            ops->TraceConnectWithoutContext("EstimatedBW", MakeBoundCallback(&OnBw, st));
        }
    }
}

inline std::string
StatsJson(const std::vector<FlowStats>& stats)
{
    uint64_t sent = 0, rtx = 0, rec = 0, to = 0, cwr = 0;
    for (const auto& st : stats)
    {
        sent += st.dataSent;
        rtx += st.retransmissions;
        rec += st.recoveries;
        to += st.timeouts;
        cwr += st.ecnReductions;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  ", \"packets_sent\": %lu, \"retransmissions\": %lu, \"fast_retransmits\": %lu, "
                  "\"timeouts\": %lu, \"ecn_reductions\": %lu",
                  (unsigned long)sent, (unsigned long)rtx, (unsigned long)rec, (unsigned long)to,
                  (unsigned long)cwr);
    return buf;
}

/// A bulk sender on `src` to a PacketSink on `dst` (address `dstAddr`, `port`), from `start`.
/// Its sender is instrumented into `st` (which must outlive the run) just after it starts.
inline Ptr<PacketSink>
BulkFlow(Ptr<Node> src, Ptr<Node> dst, Ipv4Address dstAddr, uint16_t port, double start,
         double stop, uint32_t mss, FlowStats* st, int index)
{
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dstAddr, port));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(mss));
    ApplicationContainer a = bulk.Install(src);
    a.Start(Seconds(start));
    a.Stop(Seconds(stop));
    Ptr<Application> app = a.Get(0);
    Simulator::Schedule(Seconds(start) + NanoSeconds(1), [app, st, index]() { Instrument(app, st, index); });
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer s = sinkHelper.Install(dst);
    s.Start(Seconds(0));
    s.Stop(Seconds(stop + 1));
    return DynamicCast<PacketSink>(s.Get(0));
}

/// Runs the simulation to `duration`, recording each sink's byte count at `warmup` and at the end;
/// prints one JSON line: per-flow goodput over [warmup, duration] and the wall time of Run().
/// `extra` is appended verbatim inside the JSON object (", \"key\": value ...").
inline void
RunAndReport(const std::vector<Ptr<PacketSink>>& sinks, double warmup, double duration,
             const std::function<std::string()>& extra)
{
    std::vector<uint64_t> atWarmup(sinks.size(), 0);
    std::vector<uint64_t> atEnd(sinks.size(), 0);
    Simulator::Schedule(Seconds(warmup), [&]() {
        for (size_t i = 0; i < sinks.size(); ++i)
        {
            atWarmup[i] = sinks[i]->GetTotalRx();
        }
    });
    Simulator::Schedule(Seconds(duration), [&]() {
        for (size_t i = 0; i < sinks.size(); ++i)
        {
            atEnd[i] = sinks[i]->GetTotalRx();
        }
        Simulator::Stop();
    });
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string s = "{\"flows\": [";
    double total = 0;
    for (size_t i = 0; i < sinks.size(); ++i)
    {
        double g = (atEnd[i] - atWarmup[i]) * 8.0 / (duration - warmup);
        total += g;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%.3f", i ? ", " : "", g);
        s += buf;
    }
    char buf[128];
    std::snprintf(buf, sizeof buf, "], \"total_goodput_bps\": %.3f, \"run_wall_s\": %.6f", total, wall);
    s += buf;
    s += extra();
    s += "}";
    std::printf("%s\n", s.c_str());
    Simulator::Destroy();
}

} // namespace twin
