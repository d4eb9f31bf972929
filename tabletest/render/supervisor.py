"""The render supervisor (no bpy): owns a run, feeds scene specs to worker processes, survives them.

One thread per worker slot sends one spec at a time and waits for its answer. A worker that dies
or hangs is killed and restarted and the item retried, at most `retries` more times; what still
fails is recorded with the error and the tail of Blender's own output. What a worker hands over for
writing (`write.finish`) is written by a pool of processes while the worker renders the next spec.
The main thread is the only one that commits to the output folder.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import re
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tabletest.errors import UserError
from tabletest.render.blender_log import blender_error
from tabletest.render.devices import usable_cores, worker_env

if TYPE_CHECKING:
    from tabletest.layout.spec import SceneSpec

STDERR_TAIL_LINES = 30
FIRST_FAILURES = 3  # the first scenes of a run failing alike that stop it (`SharedCause`)


@dataclass(frozen=True)
class WorkerSlot:
    number: int
    gpu: str | None
    threads: int | None


@dataclass
class Outcome:
    spec: SceneSpec
    ok: bool
    facts: dict = field(default_factory=dict)
    error: str = ""
    stderr: str = ""
    attempts: int = 1
    wall_s: float = 0.0
    recurs: bool = False  # failed for a cause of its own input (a model Blender cannot load): others may not


@dataclass
class SharedCause:
    """Stops a run whose first scenes all fail the same way, for a cause not of their own (a device, its
    driver, a setting, a folder it cannot write): left to go on, it would fail every scene, each after its
    retries. Errors are compared as `cause` gives them, so one cause is one, whatever scene it names."""

    log_dir: Path
    needed: int = FIRST_FAILURES
    causes: list[str] = field(default_factory=list)
    settled: bool = False  # a scene succeeded, or the first failures differed: the run goes on to its end

    def __call__(self, outcome: Outcome) -> None:
        if self.settled or outcome.recurs:
            return
        if outcome.ok or (self.causes and cause(outcome) != self.causes[0]):
            self.settled = True
            return
        self.causes.append(cause(outcome))
        if len(self.causes) == self.needed:
            raise UserError(
                f"the first {self.needed} scenes all failed the same way, so the run stops: {outcome.error} "
                f"(Blender's output: {self.log_dir}/worker-*.log); fix that and run the same command again"
            )


NUMBER = re.compile(r"0x[0-9a-fA-F]+|[0-9]+")  # a count, size, time, address or process id


def cause(outcome: Outcome) -> str:
    """A failure's error with what is the scene's own taken out: its models' files, its id (in the names
    of its files too) and every number, so that a cause naming each scene's own file
    (`cannot write /out/images/.rnd0-0000001.png.tmp`) reads the same for every scene, and only the words
    tell causes apart."""
    text = outcome.error
    if outcome.spec is not None:
        for obj in outcome.spec.objects:
            text = text.replace(obj.asset, "<model>") if obj.asset else text
        text = text.replace(outcome.spec.id, "<scene>")
    return NUMBER.sub("#", text)


class WorkerCrash(Exception):
    """The worker process died or stopped answering."""


class WorkerProcess:
    """One `python -m tabletest.render.worker` child, its protocol pipes and its log file. It is sent its
    setup at once and left to load Blender; `wait_ready` waits for its answer."""

    def __init__(self, slot: WorkerSlot, setup: dict, log_dir: Path, verbose: bool) -> None:
        self.slot = slot
        self.log_path = log_dir / f"worker-{slot.number}.log"
        self.verbose = verbose
        env = {**os.environ, **worker_env(slot.gpu)}
        log_dir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "a", encoding="utf-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tabletest.render.worker", "--log", str(self.log_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if verbose else self._log,
            text=True,
            env=env,
        )
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._item_log_start = 0  # where Blender's output for the item in hand begins in the log
        self.ready: dict | None = None
        self._send({"op": "setup", **setup, "threads": slot.threads})

    def wait_ready(self) -> dict:
        """The worker's `ready` message (device, Blender version); a UserError if it could not start."""
        if self.ready is None:
            self.ready = self._answer(timeout=300)
            if self.ready.get("event") != "ready":
                message = self.ready.get("error", "worker did not start")
                self.close()
                raise UserError(f"render worker could not start: {message} (log: {self.log_path})")
        return self.ready

    def request(self, message: dict, timeout: float) -> dict:
        """Send one message and wait for its answer; WorkerCrash if the process dies or the deadline passes."""
        self._log.flush()
        self._item_log_start = self._log_size()
        self._send(message)
        return self._answer(timeout)

    def _send(self, message: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as err:
            raise WorkerCrash(f"worker {self.slot.number} is gone ({err})") from None

    def _answer(self, timeout: float) -> dict:
        if not self._selector.select(timeout):
            self.kill()
            raise WorkerCrash(f"worker {self.slot.number} gave no answer within {timeout:.0f} s")
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            raise WorkerCrash(f"worker {self.slot.number} died (exit code {code})")
        return json.loads(line)

    def _log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def blender_error(self) -> str | None:
        """Blender's own error line among what it printed for the item in hand (see `blender_log`)."""
        self._log.flush()
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(self._item_log_start)
                output = fh.read(1 << 20).decode("utf-8", errors="replace")
        except OSError:
            return None
        return blender_error(output)

    def stderr_tail(self) -> str:
        self._log.flush()
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-STDERR_TAIL_LINES:])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write('{"op": "quit"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (BrokenPipeError, OSError, subprocess.TimeoutExpired):
                self.kill()
        self._log.close()


class Finisher:
    """Processes that write what workers hand over, at most two items a process ahead of them (a
    worker waits for room rather than fill the memory)."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._room = threading.Semaphore(2 * processes)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the processes now, beside the workers loading Blender, so that the first image handed over
        waits for none of them."""
        with self._lock:
            if self._pool is None:
                methods = multiprocessing.get_all_start_methods()  # a fork of this threaded process could deadlock
                context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
                context.set_forkserver_preload(["__main__", "tabletest.write.finish"])  # imported once, for every process it forks
                self._pool = ProcessPoolExecutor(
                    self.processes, mp_context=context, initializer=_finishing_process, initargs=(os.getpid(),)
                )
                self._pool.submit(os.getpid)  # its first process; it starts more as hand-overs come faster than one writes

    def submit(self, outcome: Outcome, deliver: Callable[[Outcome], None]) -> threading.Event:
        """Write the outcome's files in a process; `deliver` the finished outcome, then set the event."""
        from tabletest.write.finish import finish  # numpy and PIL: not before the workers are started

        self._room.acquire()
        self.start()
        delivered = threading.Event()

        def done(future: Future) -> None:
            self._room.release()
            try:
                finished = replace(outcome, facts=future.result())
            except Exception as err:  # a full disk, a pool stopped by an interrupt
                finished = replace(outcome, ok=False, error=f"writing its files failed: {type(err).__name__}: {err}")
            deliver(finished)
            delivered.set()

        self._pool.submit(finish, outcome.facts).add_done_callback(done)
        return delivered

    def close(self, wait: bool) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=not wait)


def _finishing_process(run_pid: int) -> None:
    """A finishing process ignores Ctrl-C, which reaches the whole process group (the run stops it), and
    ends when the run's process is gone (killed with -9, it could not say so)."""
    import signal

    from tabletest.write.orphans import end_with

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with(run_pid)


@dataclass
class Supervisor:
    setup: dict
    slots: list[WorkerSlot]
    log_dir: Path
    request: Callable[[SceneSpec], dict]  # the worker message for a spec: what to render, and where to
    retries: int = 2
    item_timeout: float = 600.0
    verbose: bool = False
    hands_over: bool = True  # its workers hand images over to be written (composite mode's layers they write themselves)
    early: dict[int, WorkerProcess] = field(default_factory=dict)  # by slot number: started before the run (`start_workers`)
    started: list[dict] = field(default_factory=list)  # each worker's `ready` message: device, Blender version
    _live: set[WorkerProcess] = field(default_factory=set, repr=False)
    _stopping: bool = field(default=False, repr=False)
    _finisher: Finisher | None = field(default=None, repr=False)

    def run(self, specs: Iterable[SceneSpec]) -> Iterator[Outcome]:
        """Render every spec; yield outcomes as they finish (in any order)."""
        self._finisher = Finisher(max(1, min(usable_cores(), 2 * len(self.slots))))
        if self.hands_over:
            self._finisher.start()
        todo: queue.Queue = queue.Queue(maxsize=4 * len(self.slots))
        results: queue.Queue = queue.Queue()
        threads = [threading.Thread(target=self._serve, args=(slot, todo, results), daemon=True) for slot in self.slots]
        for thread in threads:
            thread.start()
        feeder = threading.Thread(target=self._feed, args=(specs, todo, results), daemon=True)
        feeder.start()
        finished = 0
        shared_cause = SharedCause(self.log_dir)
        try:
            while finished < len(threads):
                item = results.get()
                if item is None:
                    finished += 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
                    shared_cause(item)
        finally:
            if finished < len(threads):  # left early (Ctrl-C, SIGTERM, an error): no worker outlives the run
                self._stopping = True
                for worker in list(self._live):
                    worker.kill()
            self._finisher.close(wait=finished == len(threads))
            close_unused(self.early)

    def _feed(self, specs: Iterable[SceneSpec], todo: queue.Queue, results: queue.Queue) -> None:
        try:
            for spec in specs:
                todo.put(spec)
        except BaseException as err:  # a bad spec source stops the run with its own message
            results.put(err)
        for _ in self.slots:
            todo.put(None)

    def _serve(self, slot: WorkerSlot, todo: queue.Queue, results: queue.Queue) -> None:
        worker: WorkerProcess | None = None
        writing: list[threading.Event] = []
        try:
            while (spec := todo.get()) is not None:
                outcome, worker = self._render(slot, worker, spec)
                if outcome.ok and "finish" in outcome.facts:  # written beside the next render
                    writing = [delivered for delivered in writing if not delivered.is_set()]
                    writing.append(self._finisher.submit(outcome, results.put))
                else:
                    results.put(outcome)
            for delivered in writing:
                delivered.wait()
        except BaseException as err:
            results.put(err)
        finally:
            if worker:
                worker.close()
                self._live.discard(worker)
            results.put(None)

    def _render(self, slot: WorkerSlot, worker: WorkerProcess | None, spec: SceneSpec) -> tuple[Outcome, WorkerProcess | None]:
        """Try an item up to 1 + retries times, restarting the worker after a crash."""
        start = time.perf_counter()
        error, stderr = "", ""
        for attempt in range(1, self.retries + 2):
            if self._stopping:
                break
            if worker is None:
                worker = self.early.pop(slot.number, None) or WorkerProcess(slot, self.setup, self.log_dir, self.verbose)
                self._live.add(worker)
                self.started.append(worker.wait_ready())
            try:
                answer = worker.request(self.request(spec), self.item_timeout)
            except WorkerCrash as crash:
                said = worker.blender_error()
                error, stderr = str(crash) + (f"; Blender: {said}" if said else ""), worker.stderr_tail()
                worker.close()
                self._live.discard(worker)
                worker = None
                continue
            if answer.get("event") == "done":
                return Outcome(spec, True, answer, attempts=attempt, wall_s=time.perf_counter() - start), worker
            recurs = bool(answer.get("recurs"))  # the worker named the input's own fault: keep its words
            said = None if recurs else worker.blender_error()  # a failure inside Blender, not what followed it
            previous, stderr = error, worker.stderr_tail()
            error = f"Blender: {said}" if said else answer.get("error", "unknown error")
            if recurs or error == previous:  # it will fail the same way again
                failed = Outcome(spec, False, error=error, stderr=stderr, attempts=attempt, recurs=recurs)
                return replace(failed, wall_s=time.perf_counter() - start), worker
        return Outcome(spec, False, error=error, stderr=stderr, attempts=self.retries + 1, wall_s=time.perf_counter() - start), worker


def start_workers(setup: dict, slots: list[WorkerSlot], log_dir: Path, verbose: bool) -> dict[int, WorkerProcess]:
    """A worker for every slot, started now and left loading Blender while the caller prepares the run;
    hand them to a `Supervisor` (`early`), or to `close_unused`."""
    started: dict[int, WorkerProcess] = {}
    try:
        for slot in slots:
            started[slot.number] = WorkerProcess(slot, setup, log_dir, verbose)
    except BaseException:
        close_unused(started)
        raise
    return started


def close_unused(workers: dict[int, WorkerProcess]) -> None:
    """Stop workers that were started but never given an item (nothing of theirs is kept but their log)."""
    while workers:
        worker = workers.popitem()[1]
        worker.kill()
        worker.close()
