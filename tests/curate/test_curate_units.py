"""Small pieces of the curation pipeline: the keep-options rule, judge replies, the role-model guard, and the
review server's request checks."""

from __future__ import annotations

import http.client

import pytest
from curate_fixtures import make_config

from vcot.curate.pipeline import ConfigError, Curation, CurationConfig
from vcot.curate.prompts import parse_verdict
from vcot.curate.review.app import ReviewApp, item_key
from vcot.curate.review.server import ReviewServer
from vcot.curate.rewrite import RewriteSettings, keeps_options
from vcot.curate.store import CurationStore, SettingsMismatch
from vcot.schema import AnswerType, Instance


def _mc(options: list[str]) -> Instance:
    return Instance(
        uid="u",
        task="t",
        domain="d",
        question="Which?",
        image="images/t/u.png",
        answer="A",
        answer_type=AnswerType.CHOICE,
        options=options,
    )


def test_keep_options_rule():
    panels, listed = _mc(["A", "B", "C"]), _mc(["red", "green", "blue"])
    default = RewriteSettings()
    assert keeps_options(panels, "Geometry", default) == "options are panels drawn in the picture"
    assert keeps_options(listed, "Geometry", default) is None
    assert keeps_options(listed, "Geometry", RewriteSettings(keep_categories=("Geometry",)))
    assert keeps_options(listed, "Geometry", RewriteSettings(keep_options="always"))
    assert keeps_options(panels, "Geometry", RewriteSettings(keep_options="never")) is None
    with pytest.raises(ValueError):
        RewriteSettings(keep_options="sometimes")


def test_judge_replies_never_pass_by_accident():
    assert parse_verdict('Sure! ```json\n{"verdict": "PASS", "reason": "fine"}\n```') == ("pass", "fine")
    assert parse_verdict('{"verdict": "fail", "reason": "two answers"}') == ("fail", "two answers")
    assert parse_verdict("looks good to me")[0] == "unclear"
    assert parse_verdict('{"verdict": "maybe"}')[0] == "unclear"


def test_a_work_folder_refuses_another_model_for_a_role(tmp_path):
    store = CurationStore(tmp_path)
    store.init_role("reasoner", {"model": "a", "temperature": 0.7, "max_tokens": 10})
    store.init_role("reasoner", {"model": "a", "temperature": 0.7, "max_tokens": 10})  # same: fine
    with pytest.raises(SettingsMismatch, match="new work folder"):
        store.init_role("reasoner", {"model": "b", "temperature": 0.7, "max_tokens": 10})
    store.close()


def test_config_errors_are_named(tmp_path):
    with pytest.raises(ConfigError, match="unknown key.*colour"):
        CurationConfig.from_dict({"work": "w", "sources": [{}], "colour": 1}, tmp_path)
    with pytest.raises(ConfigError, match="threshold"):
        CurationConfig.from_dict(
            {
                "work": "w",
                "filter": {"trials": 2, "threshold": 3},
                "sources": [{"name": "s", "format": "jsonl", "path": "x.jsonl"}],
            },
            tmp_path,
        )


def test_review_server_refuses_foreign_hosts_and_cross_origin_posts(mock, tmp_path):
    cur = Curation(CurationConfig.load(make_config(tmp_path, mock.base_url, n=6)), tag_requests=True)
    cur.run()
    app = ReviewApp(cur)
    key = item_key(app.items[0].inst.uid)
    with ReviewServer(app) as srv:

        def request(method: str, path: str, headers: dict[str, str], body: str = "") -> int:
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            conn.request(method, path, body=body, headers=headers)
            status = conn.getresponse().status
            conn.close()
            return status

        local = f"127.0.0.1:{srv.port}"
        form = {"Host": local, "Content-Type": "application/x-www-form-urlencoded"}
        assert request("GET", f"/i/{key}", {"Host": local}) == 200
        assert request("GET", f"/img/{key}.png", {"Host": local}) == 200
        assert request("GET", "/", {"Host": "evil.example"}) == 403
        assert request("GET", "/i/0123456789abcdef", {"Host": local}) == 404
        assert request("POST", f"/i/{key}", {**form, "Origin": "http://evil.example"}, "action=approve") == 403
        assert request("POST", f"/i/{key}", form, "action=explode") == 400
        assert request("POST", f"/i/{key}", form, "action=edit&question=&answer=") == 400
        assert cur.store.decisions("review") == {}
        assert request("POST", f"/i/{key}", form, "action=approve") == 303
    assert cur.store.decision("review", app.items[0].inst.uid)["verdict"] == "approved"
    cur.close()
