"""A WritingWorkflow input chooses no file on the worker's disk (issue 38, item 2): `config_name` is the name of a
shipped config, never a path. Before, `{"config_name": "/srv/secret/app.yaml"}` made the worker read that file
(and echo its parse errors into the run's failure)."""

from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError

from activities.writing.storage import PrepareInput, _writing_prepare_run


@pytest.mark.parametrize("name", ["OUTSIDE", "../../../../etc/x", "configs/writing/default.yaml", "default.yaml",
                                  "..\\x", ".hidden", ""])
def test_a_config_name_that_is_a_path_is_refused(tmp_path, name):
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n")
    name = str(secret) if name == "OUTSIDE" else name
    with pytest.raises(ApplicationError) as err:
        _writing_prepare_run(PrepareInput(run_id="r1", config_name=name))
    assert err.value.non_retryable and err.value.type == "ConfigError"
    assert "never a path" in err.value.message and "hunter2" not in err.value.message


def test_a_shipped_config_is_found_by_its_name():
    assert _writing_prepare_run(PrepareInput(run_id="r1", config_name="default")).config.states
