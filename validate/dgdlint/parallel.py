"""Tasks shared between this process and forks of it (`--jobs`): reading many files, the schema stage and
the rules of a large set.

Each worker is a fork, so it has everything this process has (modules imported, schemas compiled, the
model built) and nothing is sent to it. The tasks are numbered and their numbers written into a pipe whose
writing end is then closed: each process, this one included, reads the next number when it is free, so a
slow task or a busy core does not hold the others back, and a process that finds the pipe empty is done.
A worker sends each task's result (pickled, or as the caller encodes it) as soon as it has it, without
waiting for this process to read (what the pipe cannot hold yet waits in the worker), and this process
reads what has come between its own tasks: little is left to read once the last task is done.

Nothing is lost when a worker fails: the tasks it did not send are run here. Where forking is unsafe or
missing (another thread in this process, a native one included; a platform without /proc, where that cannot
be seen), the tasks run here, one after another."""

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
    starts). A worker's result of each task, {task: ready(result)} (`ready` readies it for the journey),
    travels as `send` writes it and `receive` reads it back (pickle by default), as soon as it is done."""
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
    started: list[_Worker] = []
    try:
        for _ in range(workers):
            try:
                started.append(_fork(queue_read, run if ready is None else lambda task: ready(run(task)),
                                     send or _pickled))
            except OSError:  # no more processes, memory or descriptors: fewer workers, maybe none
                break
        results: dict = {}
        read = receive or _unpickled

        def drain() -> None:
            for worker in started:
                worker.read(results, read, block=False)

        if meanwhile is not None:
            meanwhile()
        drain()
        _claim(queue_read, run, results, after=drain)
        os.close(queue_read)
        queue_read = -1
        while started:
            started.pop(0).finish(results, read)
        return [results[task] if task in results else run(task) for task in range(tasks)]  # a worker's lost ones
    finally:
        for worker in started:  # meanwhile or a task failed here: the workers are not needed any more
            worker.stop()
        if queue_read >= 0:
            os.close(queue_read)


def _here(tasks: int, run, meanwhile) -> list:
    if meanwhile is not None:
        meanwhile()
    return [run(task) for task in range(tasks)]


def _claim(queue: int, run, results: dict | None = None, after=None) -> dict:
    """Run the tasks whose numbers this process reads from the queue, into `results`; `after` each one."""
    results = {} if results is None else results
    while True:
        record = os.read(queue, _RECORD)
        if len(record) < _RECORD:  # empty (every number was written at once: a record is never split)
            return results
        task = int.from_bytes(record, "little")
        results[task] = run(task)
        if after is not None:
            after()


_LENGTH = 8  # each result travels as its length, then its bytes


def _fork(queue: int, run, send) -> _Worker:
    read_end, write_end = os.pipe()
    _widen(write_end)
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # the worker: run tasks, send each result, leave without this process's exit handlers or buffers
        status = 1
        try:
            os.close(read_end)
            out = _Outbox(write_end)
            _claim(queue, lambda task: out.put(send({task: run(task)})))
            out.close()
            status = 0
        except BaseException:  # noqa: BLE001 - whatever went wrong, this process runs the tasks not sent
            pass
        finally:
            os._exit(status)
    os.close(write_end)
    os.set_blocking(read_end, False)
    return _Worker(pid, read_end)


def _widen(pipe: int) -> None:
    """A pipe that holds a megabyte (Linux's most without privileges; 64 KiB otherwise): results a worker sends
    while this process is busy elsewhere wait in the pipe, not in the worker until its next task."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):  # another platform, or a lower limit: the pipe as it is
        pass


class _Outbox:
    """A worker's results on their way: written as far as the pipe takes them now, the rest when it can."""

    def __init__(self, pipe: int):
        self.pipe = pipe
        self.pending = bytearray()
        self.sent = 0
        os.set_blocking(pipe, False)

    def put(self, payload: bytes) -> None:
        if self.sent > len(self.pending) // 2:  # (what was written is dropped now and then, not at each write)
            del self.pending[:self.sent]
            self.sent = 0
        self.pending += len(payload).to_bytes(_LENGTH, "little")
        self.pending += payload
        self._write()

    def _write(self) -> None:
        with memoryview(self.pending) as view:
            while self.sent < len(view):
                try:
                    self.sent += os.write(self.pipe, view[self.sent:])
                except BlockingIOError:  # the pipe is full until this process reads it
                    return

    def close(self) -> None:
        os.set_blocking(self.pipe, True)
        self._write()
        os.close(self.pipe)


class _Worker:
    """A worker as this process sees it: its process, and the results it has sent, read as they come."""

    def __init__(self, pid: int, pipe: int):
        self.pid = pid
        self.pipe = pipe
        self.buffer = bytearray()
        self.broken = False  # a result could not be read: the rest are not trusted (their tasks run here)

    def read(self, results: dict, receive, block: bool) -> None:
        """Read what the worker has sent (until it is done, with `block`) into `results`."""
        if self.pipe < 0:
            return
        os.set_blocking(self.pipe, block)
        while True:
            try:
                chunk = os.read(self.pipe, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:  # the worker is done (or gone)
                os.close(self.pipe)
                self.pipe = -1
                break
            self.buffer += chunk
        self._take(results, receive)

    def _take(self, results: dict, receive) -> None:
        at = 0
        while not self.broken and len(self.buffer) - at >= _LENGTH:
            size = int.from_bytes(self.buffer[at:at + _LENGTH], "little")
            if len(self.buffer) - at - _LENGTH < size:
                break  # the rest of it is still on its way
            payload = bytes(self.buffer[at + _LENGTH:at + _LENGTH + size])
            at += _LENGTH + size
            try:
                part = receive(payload)
            except Exception:  # noqa: BLE001 - cut short or not what was sent
                self.broken = True
                break
            if isinstance(part, dict):
                results.update(part)
        del self.buffer[:at]

    def finish(self, results: dict, receive) -> None:
        """Every result the worker sends, then the worker waited for."""
        self.read(results, receive, block=True)
        os.waitpid(self.pid, 0)

    def stop(self) -> None:
        import signal

        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        if self.pipe >= 0:
            try:
                os.close(self.pipe)
            except OSError:
                pass
            self.pipe = -1


def _pickled(results: dict) -> bytes:
    return pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)


def _unpickled(payload: bytes) -> dict:
    return pickle.loads(payload)  # noqa: S301 - written by this process's own fork
