"""The training processes keep freed memory: a step's buffers are not faulted back in every step."""

import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                                reason="mallopt is glibc's")

LOOP = """
import resource, sys
import numpy as np
from vision.training.allocator import keep_freed_memory
applied = keep_freed_memory() if sys.argv[1] == "kept" else None
for _ in range(3):  # the heap grows to its working size
    a = np.ones((32, 3, 112, 192), np.float32); b = a * 2; del a, b
r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(40):  # one batch and one activation of a card-model step, allocated and freed
    a = np.ones((32, 3, 112, 192), np.float32); b = a * 2; del a, b
print(applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0)
"""


def _faults(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", LOOP, mode], capture_output=True, text=True, check=True).stdout.split()
    return out[0], int(out[1])


def test_freed_buffers_stay_mapped():
    applied, kept = _faults("kept")
    _, default = _faults("default")
    assert applied == "True"
    # glibc's default hands (some of) the 8 MB buffers back and faults their pages in again (up to
    # 40 x 2 x 2 000); kept, they stay mapped
    assert default > 10_000
    assert kept < default / 10


def test_applying_twice_is_harmless():
    # in a process of its own: the test run's own allocator stays as it is
    twice = "from vision.training.allocator import keep_freed_memory; print(keep_freed_memory(), keep_freed_memory())"
    out = subprocess.run([sys.executable, "-c", twice], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True"]
