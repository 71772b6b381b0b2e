"""One training run that survives stops: its schedule, its checkpoint, and a clean stop on a signal.

A run is planned once (``Schedule``: peak learning rate, warm-up, the number
of steps the cosine decay spans) and every resumed session continues it at
the step it reached: no new warm-up per session. The checkpoint holds the
weights, their moving average (what is exported), the optimiser's moments,
the step, the crops seen, the training seconds, the data's next seed and the
history of held-out checks. It is written atomically (a power cut leaves the
previous one), every few minutes and when the run is stopped.
"""

from __future__ import annotations

import math
import os
import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path

RUN_FORMAT = "tarotmate-training-run/1"


@dataclass(frozen=True)
class Schedule:
    """Learning rate by step: a linear warm-up, then a cosine decay to ``floor`` × peak over ``steps``."""

    peak: float
    steps: int
    warmup: int = 300
    floor: float = 0.05

    def lr(self, step: int) -> float:
        warm = min(1.0, (step + 1) / max(1, self.warmup))
        frac = min(1.0, step / max(1, self.steps))
        cosine = self.floor + (1 - self.floor) * 0.5 * (1 + math.cos(math.pi * frac))
        return self.peak * warm * cosine


def replanned(schedule: "Schedule", peak: float | None, steps: int | None) -> "Schedule":
    """``schedule`` re-planned on resume: another peak, or another length (a shorter one anneals
    sooner, a longer one takes the rate back up its cosine); the run keeps its step."""
    return Schedule(peak=peak if peak is not None else schedule.peak, steps=steps or schedule.steps,
                    warmup=schedule.warmup, floor=schedule.floor)


@dataclass
class RunState:
    """What a resumed run needs besides the tensors."""

    schedule: Schedule
    step: int = 0
    crops_seen: int = 0
    train_seconds: float = 0.0
    next_seed: int = 0
    sessions: int = 0
    history: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["schedule"] = asdict(self.schedule)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RunState":
        d = dict(d)
        d["schedule"] = Schedule(**d["schedule"])
        return cls(**d)


def save_checkpoint(path: Path, tensors: dict, state: RunState) -> None:
    """Write ``tensors`` and ``state`` to ``path`` atomically (write beside, sync, rename)."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        torch.save({"format": RUN_FORMAT, "run": state.to_dict(), **tensors}, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    try:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def load_checkpoint(path: Path) -> tuple[dict, RunState | None]:
    """(tensors, run state) of a run checkpoint; a bare state dict (an older checkpoint) gives (``{"model": it}``, None)."""
    import torch

    blob = torch.load(Path(path), map_location="cpu", weights_only=False)
    if isinstance(blob, dict) and blob.get("format") == RUN_FORMAT:
        run = RunState.from_dict(blob["run"])
        return {k: v for k, v in blob.items() if k not in ("format", "run")}, run
    if isinstance(blob, dict) and "state" in blob and isinstance(blob["state"], dict):
        return {"model": blob["state"]}, None
    return {"model": blob}, None


def claim_new_run(path: Path, fresh: bool, when: str | None = None) -> str | None:
    """Before a new run (not ``--resume``) takes ``path``: ``None`` when it may start. A checkpoint
    already there is hours of training: without ``fresh`` the new run is refused (the returned text
    says what is there and what to do); with ``fresh`` the old checkpoint is kept beside, renamed
    ``<stem>-before-<when>.pt`` (``when``: a UTC time stamp by default), and the run may start."""
    import time

    path = Path(path)
    if not path.exists():
        return None
    if not fresh:
        try:
            _, run = load_checkpoint(path)
            what = (f"a run at step {run.step} of {run.schedule.steps}, {run.train_seconds / 3600:.2f} h trained"
                    if run else "the weights of an older run")
        except Exception as exc:  # noqa: BLE001 - whatever it is, it is not overwritten
            what = f"a checkpoint that cannot be read ({type(exc).__name__})"
        return (f"{path} holds {what}: --resume continues it; --fresh starts a new run and keeps it beside "
                f"as {path.stem}-before-<time>{path.suffix}; another --work starts a new run elsewhere")
    stamp = when or time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    kept = path.with_name(f"{path.stem}-before-{stamp}{path.suffix}")
    n = 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.stem}-before-{stamp}-{n}{path.suffix}")
    os.replace(path, kept)
    return None


class StopRequest:
    """Set by SIGINT or SIGTERM: the loop finishes its step, saves and exits (a second signal is the default action)."""

    def __init__(self):
        self.requested = False
        self.signal_name = ""
        self._old = {}

    def __enter__(self) -> "StopRequest":
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:  # asked twice: stop now
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self.requested = True
        self.signal_name = signal.Signals(signum).name

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
