"""dgdlint.parallel: tasks shared between this process and forks of it give what running them here gives,
in order, whatever happens to a worker."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dgdlint import parallel

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform: the tasks run in one "
                                "process, as test_with_another_thread_running_nothing_is_forked shows")


@pytest.fixture(autouse=True)
def forking(monkeypatch, request):
    """pytest-xdist's workers run a thread of their own, so can_fork says no there: the tests fork anyway (the
    forked workers run only the tasks below, which take no lock that thread could hold)."""
    if request.node.name != "test_with_another_thread_running_nothing_is_forked":
        monkeypatch.setattr(parallel, "can_fork", lambda: True)


def children() -> set[int]:
    """This process's children, zombies (forks not waited for) included (Linux's /proc; empty elsewhere)."""
    found: set[int] = set()
    for listing in Path("/proc/self/task").glob("*/children"):
        found.update(int(pid) for pid in listing.read_text().split())
    return found


@pytest.fixture
def no_children_left():
    """Every fork was waited for: the test process has the children it had before (a server a fixture of the
    tier started, say), no more."""
    before = children()
    return lambda: children() <= before


@pytest.mark.parametrize("workers", [0, 1, 2, 5])
@pytest.mark.parametrize("tasks", [1, 2, 7, 100])
def test_results_come_back_in_task_order(workers, tasks, no_children_left):
    here = os.getpid()

    def task(number):
        time.sleep(0.001)  # long enough for a worker to start before this process has taken every task
        return number * number, os.getpid() != here

    ran_where = parallel.share(tasks, task, workers)
    assert [square for square, _ in ran_where] == [task * task for task in range(tasks)]
    if workers and tasks > 20:  # the workers took some (each waits on the tasks' pipe, none is starved)
        assert any(remote for _, remote in ran_where)
    assert no_children_left()


def test_the_tasks_of_a_worker_that_dies_are_run_here(no_children_left):
    here = os.getpid()

    def task(number):
        if os.getpid() != here and number % 3 == 0:
            os._exit(9)  # a worker killed mid-task: what it had done is lost with it
        return number

    assert parallel.share(60, task, 2) == list(range(60))
    assert no_children_left()


def test_what_a_worker_sent_before_it_died_is_kept(no_children_left):
    """A worker sends each result as soon as it has it: the tasks it finished before it died are not run again
    here, only the one it died in and those it did not take."""
    here, done_there, ran_here = os.getpid(), [0], []

    def task(number):
        if os.getpid() == here:
            ran_here.append(number)
        else:
            done_there[0] += 1
            if done_there[0] == 5:
                os._exit(9)
        return number * 2

    results = parallel.share(20, task, 1, meanwhile=lambda: time.sleep(0.3))  # the worker starts alone
    assert results == [number * 2 for number in range(20)]
    assert sorted(ran_here) == list(range(4, 20))  # (the one it died in, 4, after the rest)
    assert no_children_left()


def test_a_worker_whose_results_cannot_be_sent_is_replaced_by_this_process():
    results = parallel.share(40, lambda task: (lambda: task) if os.getpid() != HERE[0] else task, 2)
    assert results == list(range(40))  # a lambda does not pickle: the worker sends nothing, its tasks rerun here


HERE = [os.getpid()]


@pytest.fixture(autouse=True)
def _here():
    HERE[0] = os.getpid()


def test_an_error_here_stops_the_workers_and_is_raised(no_children_left):
    here = os.getpid()

    def task(number):
        if os.getpid() == here:
            raise RuntimeError("task failed")
        time.sleep(0.001)
        return number

    with pytest.raises(RuntimeError, match="task failed"):
        parallel.share(200, task, 2)
    assert no_children_left()


def test_meanwhile_runs_here_once_while_workers_work_or_before_the_tasks_without_them():
    calls = []
    parallel.share(10, lambda task: task, 1, meanwhile=lambda: calls.append(os.getpid()))
    assert calls == [os.getpid()]
    parallel.share(10, lambda task: calls.append(task), 0, meanwhile=lambda: calls.append("first"))
    assert calls == [os.getpid(), "first", *range(10)]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="no /proc: dgdlint cannot see its threads, and "
                    "forks no worker")
def test_a_process_without_threads_may_fork():
    completed = subprocess.run([sys.executable, "-c", "from dgdlint import parallel; print(parallel.can_fork())"],
                               capture_output=True, text=True, timeout=60)
    assert completed.stdout.strip() == "True", completed.stderr


def test_with_another_thread_running_nothing_is_forked():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not parallel.can_fork()
        here = os.getpid()
        assert parallel.share(50, lambda task: os.getpid() == here, 3) == [True] * 50
    finally:
        stop.set()
        thread.join()


def test_the_number_of_tasks_is_bounded_so_writing_them_never_blocks():
    with pytest.raises(ValueError, match="at most"):
        parallel.share(parallel.MAX_TASKS + 1, lambda task: task, 1)


@pytest.mark.parametrize(("jobs", "expected"), [(1, 0), (3, 2), (12, 11), (0, None), (None, None)])
def test_jobs_count_this_process(jobs, expected):
    default = min(parallel.usable_cpus(), parallel.DEFAULT_MAX) - 1
    assert parallel.worker_count(jobs) == (default if expected is None else expected)


@pytest.mark.parametrize(("text", "cpus"), [("max 100000\n", None), ("200000 100000\n", 2), ("150000 100000", 2),
                                            ("50000 100000", 1), ("", None), ("garbage", None), ("1 0", None)])
def test_a_cgroup_cpu_quota_is_read_as_whole_cpus(text, cpus, tmp_path):
    (tmp_path / "cpu.max").write_text(text)
    assert parallel.cgroup_cpu_quota(str(tmp_path / "cpu.max")) == cpus
    assert parallel.cgroup_cpu_quota(str(tmp_path / "absent")) is None


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="no /proc: forks not waited for are not seen")
def test_the_check_for_forks_left_sees_one(no_children_left):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        time.sleep(0.05)
        assert not no_children_left()  # a zombie until waited for
    finally:
        os.waitpid(pid, 0)
    assert no_children_left()


@pytest.mark.parametrize("fails", ["fork", "pipe"])
def test_where_the_system_refuses_a_fork_or_a_pipe_the_tasks_run_here(fails, monkeypatch, no_children_left):
    def refused(*_args):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, fails, refused)
    assert parallel.share(30, lambda task: task * 2, 3, meanwhile=lambda: None) == [task * 2 for task in range(30)]
    assert no_children_left()


def test_where_the_second_fork_is_refused_the_first_worker_still_helps(monkeypatch, no_children_left):
    real_fork, forks = os.fork, []

    def once(*_args):
        if forks:
            raise OSError(11, "Resource temporarily unavailable")
        forks.append(True)
        return real_fork()

    monkeypatch.setattr(os, "fork", once)
    here = os.getpid()

    def task(number):
        time.sleep(0.001)
        return number, os.getpid() != here

    results = parallel.share(100, task, 3)
    assert [number for number, _ in results] == list(range(100)) and any(remote for _, remote in results)
    assert no_children_left()
