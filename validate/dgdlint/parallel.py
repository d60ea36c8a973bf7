"""Tasks shared between this process and forks of it (`--jobs`): reading many files, the schema stage and
the rules of a large set.

Each worker is a fork, so it has everything this process has (modules imported, schemas compiled, the
model built) and nothing is sent to it. The tasks are numbered and their numbers written into a pipe whose
writing end is then closed: each process, this one included, reads the next number when it is free, so a
slow task or a busy core does not hold the others back, and a process that finds the pipe empty is done.
Each worker sends back what its tasks gave (pickled, or as the caller encodes it) when it is done.

Nothing is lost when a worker fails: its tasks are run here. Where forking is unsafe or missing (another
thread in this process, a native one included; a platform without /proc, where that cannot be seen), the
tasks run here, one after another."""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable

MAX_TASKS = 1024  # task numbers are 4 bytes: 4 KiB, a page, within any pipe's buffer: writing them never blocks
_RECORD = 4


DEFAULT_MAX = 8  # --jobs 0 forks at most this many less one, however many CPUs the machine shows


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (where the platform says), bounded by its cgroup's CPU
    quota (a container's `--cpus`, a pod's CPU limit), which the affinity does not show."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS and Windows have no affinity call
        count = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    return max(1, min(count, quota)) if quota else count


def cgroup_cpu_quota(path: str = "/sys/fs/cgroup/cpu.max") -> int | None:
    """cgroup v2's `cpu.max` (`QUOTA PERIOD`, or `max PERIOD` without a quota) as whole CPUs, rounded up."""
    try:
        with open(path, encoding="ascii") as handle:
            quota, _, period = handle.read().strip().partition(" ")
        return -(-int(quota) // int(period)) if quota != "max" else None
    except (OSError, ValueError, ZeroDivisionError):
        return None


def worker_count(jobs: int | None) -> int:
    """Processes besides this one for `jobs` (0 or None: one per usable CPU, at most DEFAULT_MAX; 1: none)."""
    return max((jobs or min(usable_cpus(), DEFAULT_MAX)) - 1, 0)


def can_fork() -> bool:
    """Whether this process may fork workers: only where it can see that it runs one thread, native threads
    included (Linux's /proc), as a fork copies only the calling thread and a lock another one held stays held.
    Elsewhere (macOS, where system libraries are not safe across a fork either; Windows, without fork) the
    tasks run in this process."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def share(tasks: int, run: Callable[[int], object], workers: int, meanwhile: Callable[[], None] | None = None,
          send: Callable[[dict], bytes] | None = None, receive: Callable[[bytes], dict] | None = None,
          ready: Callable[[object], object] | None = None) -> list:
    """[run(0), ..., run(tasks - 1)], the tasks shared between this process and up to `workers` forks.
    `meanwhile` runs here first, while the workers start on the tasks (before the tasks where no worker
    starts). A worker's results, {task: ready(result)} (`ready` readies each
    for the journey as soon as it is done), travel as `send` writes them and `receive` reads them back
    (pickle by default)."""
    if tasks > MAX_TASKS:
        raise ValueError(f"at most {MAX_TASKS} tasks")
    workers = min(workers, tasks - 1)
    if workers < 1 or not can_fork():
        return _here(tasks, run, meanwhile)
    try:
        queue_read, queue_write = os.pipe()
    except OSError:  # out of file descriptors: no workers
        return _here(tasks, run, meanwhile)
    os.write(queue_write, b"".join(task.to_bytes(_RECORD, "little") for task in range(tasks)))
    os.close(queue_write)
    started: list[tuple[int, int]] = []
    try:
        for _ in range(workers):
            try:
                started.append(_fork(queue_read, run if ready is None else lambda task: ready(run(task)),
                                     send or _pickled))
            except OSError:  # no more processes, memory or descriptors: fewer workers, maybe none
                break
        if meanwhile is not None:
            meanwhile()
        results = _claim(queue_read, run)
        os.close(queue_read)
        queue_read = -1
        while started:
            pid, pipe = started.pop(0)
            results.update(_collect(pid, pipe, receive or _unpickled))
        return [results[task] if task in results else run(task) for task in range(tasks)]  # a worker's lost ones
    finally:
        for pid, pipe in started:  # meanwhile or a task failed here: the workers are not needed any more
            _stop(pid, pipe)
        if queue_read >= 0:
            os.close(queue_read)


def _here(tasks: int, run, meanwhile) -> list:
    if meanwhile is not None:
        meanwhile()
    return [run(task) for task in range(tasks)]


def _claim(queue: int, run) -> dict:
    results = {}
    while True:
        record = os.read(queue, _RECORD)
        if len(record) < _RECORD:  # empty (every number was written at once: a record is never split)
            return results
        task = int.from_bytes(record, "little")
        results[task] = run(task)


def _fork(queue: int, run, send) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # the worker: run tasks, send, and leave without this process's exit handlers or buffers
        status = 1
        try:
            os.close(read_end)
            payload = send(_claim(queue, run))
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
            status = 0
        except BaseException:  # noqa: BLE001 - whatever went wrong, this process runs the tasks itself
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(pid: int, pipe: int, receive) -> dict:
    """A worker's results; none if it sent none it could finish (its tasks are then run here)."""
    try:
        with os.fdopen(pipe, "rb") as source:
            payload = source.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if status != 0 or not payload:
        return {}
    try:
        results = receive(payload)
    except Exception:  # noqa: BLE001 - cut short
        return {}
    return results if isinstance(results, dict) else {}


def _pickled(results: dict) -> bytes:
    return pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)


def _unpickled(payload: bytes) -> dict:
    return pickle.loads(payload)  # noqa: S301 - written by this process's own fork


def _stop(pid: int, pipe: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
    try:
        os.close(pipe)
    except OSError:
        pass
