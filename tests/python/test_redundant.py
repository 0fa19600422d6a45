"""The summary's ``redundant_segments`` (issue 40 item 8): data segments that reached the receiver
when it already held them. Checked against a conservation law that does not use the counter: in
a finite transfer that completes, of full-sized segments and with no corruption, every segment
the receiver gets is either one of the transfer's new segments (delivered exactly once) or one it
already held, so packets_received = delivered_bytes / segment_bytes + redundant_segments. Also
redundant ≤ retransmissions (only a segment sent twice can arrive twice), it is absent for UDP,
and go-back-N after timeouts (TCP-Jersey on Fig. 10) resends segments the receiver holds."""

from __future__ import annotations

import pytest

import airtcp
from conftest import REPO

FIG10 = REPO / "examples" / "jersey_fig10.toml"


@pytest.mark.parametrize("cc", ["reno", "jersey", "bbr"])
def test_every_segment_received_is_new_or_redundant(cc):
    d = airtcp.scenario.load(FIG10)
    d["flows"][0]["cc"] = cc
    d["flows"][0]["bytes"] = "2000KB"  # 2000 full segments of 1000 B
    f = airtcp.run(d, seed=1, base_dir=FIG10.parent).summary["flows"][0]
    assert f["delivered_bytes"] == 2_000_000 and f["segment_bytes"] == 1000 and f["corrupted_received"] == 0
    assert f["packets_received"] == 2000 + f["redundant_segments"]
    assert 0 < f["redundant_segments"] <= f["retransmissions"]


def test_only_tcp_flows_report_it():
    flows = airtcp.run(REPO / "examples" / "voip_congestion.toml", seed=1).summary["flows"]
    assert {g["kind"] for g in flows} >= {"tcp", "voip"}
    assert all(("redundant_segments" in g) == (g["kind"] == "tcp") for g in flows)


def test_the_capacity_line_is_the_slowest_link_of_the_one_path():
    from airtcp.plots import bottleneck_bps

    def link(a, b, rate):
        return {"from": a, "to": b, "rate_bps": rate}

    one = {
        "flows": [{"src": "S", "dst": "D"}, {"src": "S", "dst": "D"}],
        "links": [link("S", "R", 10e6), link("R", "S", 1e6), link("R", "D", 2e6), link("D", "R", 2e6)],
    }
    assert bottleneck_bps(one) == 2e6  # the slower reverse link S <- R is not on the path
    assert bottleneck_bps({**one, "flows": [{"src": "S", "dst": "D"}, {"src": "D", "dst": "S"}]}) is None
    assert bottleneck_bps({**one, "links": one["links"][:2]}) is None  # no path
    trace = {**one, "links": [link("S", "R", 10e6), {"from": "R", "to": "D", "rate_bps": None}]}
    assert bottleneck_bps(trace) is None
    fig10 = airtcp.run(FIG10, seed=1).summary
    assert bottleneck_bps(fig10) == 2e6  # TCP-Jersey Fig. 10: the 2 Mb/s wireless hop
