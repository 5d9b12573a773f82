"""`vcot validate --oracle` uses the scene3d tasks' oracles too (not only MIRA's twenty), and refuses names that
are not plain module names."""

from __future__ import annotations

import pytest

from vcot.build import TaskPlan, build_suite
from vcot.oracles import NoOracle, get_oracle
from vcot.validate import validate_suite


def test_3d_tasks_are_re_derived_by_their_oracles(tmp_path):
    build_suite(tmp_path / "s", "s", [TaskPlan("object_attributes", 3, 0), TaskPlan("compositional_3d", 3, 0)])
    report = validate_suite(tmp_path / "s", check_hash=False, oracle=True)
    assert report.ok, report.problems
    assert report.oracle_checked == 6 and not report.no_oracle


@pytest.mark.parametrize("name", ["__init__", "_private", "../x", "a.b", "toy_dots"])
def test_names_without_an_oracle_module_have_none(name):
    with pytest.raises(NoOracle):
        get_oracle(name)
