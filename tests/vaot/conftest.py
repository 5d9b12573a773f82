import pytest

from vaot_fixtures import make_vaot_run


@pytest.fixture(scope="session")
def vaot_run(tmp_path_factory):
    return make_vaot_run(tmp_path_factory.mktemp("vaot"))
