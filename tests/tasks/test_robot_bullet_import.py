"""Bullet is imported only when a robot scene is simulated, and its import banner never reaches a command's
output (src/vcot/tasks/robot/_bullet.py)."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_listing_the_tasks_does_not_import_bullet() -> None:
    r = _run(
        "import sys\nfrom vcot.tasks import task_names\nassert 'robot_program' in task_names()\n"
        "print('pybullet' in sys.modules)"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False" and "pybullet" not in r.stderr


def test_simulating_prints_no_banner() -> None:
    r = _run(
        "from vcot.tasks import get_task\nt = get_task('robot_program', 'easy')\nprint(t.solved_scene(0, 1)[1].answer)"
    )
    assert r.returncode == 0, r.stderr
    assert "pybullet build time" not in r.stdout + r.stderr
    assert len(r.stdout.split()) == 1  # the answer alone


def test_the_banner_check_can_fail() -> None:
    # Imported plainly, the extension does write its banner: the silencing above is what removes it.
    r = _run("import pybullet")
    assert "pybullet build time" in r.stdout + r.stderr
