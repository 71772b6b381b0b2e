"""Keep freed memory in the process instead of handing it back to the kernel at once.

A training step allocates and frees the same large buffers (a batch, its activations, their gradients)
hundreds of times a minute. glibc's default returns a freed block at the top of the heap to the kernel
as soon as 128 KiB are free there, and the next step faults every page of it back in: on this machine
that is about 290 000 page faults a second for a card-model run and a third to a half of both cores'
time spent in the kernel. Raising the trim threshold (and letting blocks up to 32 MiB come from the
heap rather than from fresh ``mmap`` calls) keeps those pages mapped;
``benchmarks/bench_training.py [--default-allocator]`` measures the difference.

Only the training processes call this; the Pi app does not (it allocates little per frame).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

# mallopt(3) parameter numbers (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3

TRIM_THRESHOLD = 1 << 30  # a gibibyte free at the heap's top before any goes back
TOP_PAD = 64 << 20  # grow the heap 64 MiB at a time
MMAP_THRESHOLD = 32 << 20  # glibc's largest: blocks below it come from the heap


def keep_freed_memory() -> bool:
    """Tune glibc's allocator for a training process (and the processes it forks); return whether it
    was applied (``False`` off Linux/glibc, where it is not needed or not possible)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # not glibc (musl has no mallopt)
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    ok &= mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    ok &= mallopt(M_TOP_PAD, TOP_PAD) == 1
    return bool(ok)
