"""A run is a pure function of (scenario text, seed): serially, in parallel, and repeated."""

from __future__ import annotations

import airtcp

from conftest import GOOD


def assert_same(a: airtcp.RunResult, b: airtcp.RunResult) -> None:
    assert a.summary_json == b.summary_json  # byte for byte
    assert a.flow_series.equals(b.flow_series)
    assert a.link_series.equals(b.link_series)


def test_same_seed_same_bytes_serially(good_text):
    a = airtcp.run(good_text, seed=11)
    b = airtcp.run(good_text, seed=11)
    assert_same(a, b)
    assert a.flow_series.height > 0 and a.link_series.height > 0


def test_run_many_equals_serial_runs(good_text):
    seeds = [11, 12, 11, None]
    serial = [airtcp.run(good_text, seed=s) for s in seeds]
    parallel = airtcp.run_many([good_text] * len(seeds), jobs=2, seeds=seeds)
    assert len(parallel) == len(serial)
    for a, b in zip(serial, parallel):
        assert_same(a, b)
    assert_same(parallel[0], parallel[2])
    assert parallel[3].seed == 7  # the file's own seed


def test_run_many_with_progress_equals_without(good_text):
    calls = []
    with_progress = airtcp.run_many(
        [good_text] * 3, jobs=2, seeds=[1, 2, 3], progress=lambda d, t: calls.append((d, t))
    )
    without = airtcp.run_many([good_text] * 3, jobs=1, seeds=[1, 2, 3])
    for a, b in zip(with_progress, without):
        assert_same(a, b)
    assert calls[0] == (0, 3) and calls[-1] == (3, 3)


def test_file_seed_is_the_default(good_text):
    assert_same(airtcp.run(good_text), airtcp.run(good_text, seed=7))


def test_different_seed_changes_a_lossy_run(good_text):
    a = airtcp.run(good_text, seed=1)
    b = airtcp.run(good_text, seed=2)
    assert a.summary["flows"] != b.summary["flows"]
    assert not a.flow_series.equals(b.flow_series)


def test_path_dict_and_text_inputs_agree(good_text):
    from airtcp.scenario import load

    a = airtcp.run(GOOD, seed=3)
    b = airtcp.run(str(GOOD), seed=3)
    c = airtcp.run(load(GOOD), seed=3)
    assert_same(a, b)
    assert_same(a, c)
