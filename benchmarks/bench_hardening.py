"""Does Tarotmate run under the unit's ``MemoryDenyWriteExecute=yes``?

systemd 252 (Raspberry Pi OS Bookworm) implements ``MemoryDenyWriteExecute=``
with a seccomp filter: ``mmap`` with both ``PROT_WRITE`` and ``PROT_EXEC``,
``mprotect``/``pkey_mprotect`` with ``PROT_EXEC`` and ``shmat`` with
``SHM_EXEC`` fail with ``EPERM``. This script installs the same filter
(through libseccomp, as systemd does) in a child process, checks that the
filter bites (a writable+executable ``mmap`` fails), then plays the demo in
that process with the shipped ONNX card and locator models (onnxruntime,
OpenCV, numpy, Pillow, luma: everything ``tarotmate run`` loads except the
Pi-only picamera2 and lgpio), and the same demo without the filter. Prints
both results and times; exits 1 when the filtered run fails or differs.

    .venv/bin/python benchmarks/bench_hardening.py [--seed 1]

Needs libseccomp (``libseccomp2``, present on Debian and Raspberry Pi OS).
On the Pi, run it there: the aarch64 onnxruntime wheel is what matters.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import errno
import json
import mmap
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROT_WRITE, PROT_EXEC = 0x2, 0x4
SHM_EXEC = 0o100000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7


def scmp_act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class ArgCmp(ctypes.Structure):  # struct scmp_arg_cmp
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def install_memory_deny_write_execute() -> None:
    """The seccomp rules of systemd's MemoryDenyWriteExecute=yes, for this process."""
    name = ctypes.util.find_library("seccomp")
    if name is None:
        raise SystemExit("libseccomp is not installed (apt install libseccomp2); cannot check")
    lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(ArgCmp)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    deny = scmp_act_errno(errno.EPERM)
    rules = [("mmap", 2, PROT_WRITE | PROT_EXEC), ("mmap2", 2, PROT_WRITE | PROT_EXEC),
             ("mprotect", 2, PROT_EXEC), ("pkey_mprotect", 2, PROT_EXEC), ("shmat", 2, SHM_EXEC)]
    for syscall, arg, mask in rules:
        number = lib.seccomp_syscall_resolve_name(syscall.encode())
        if number < 0:
            continue  # not a system call of this architecture
        cmp = (ArgCmp * 1)(ArgCmp(arg, SCMP_CMP_MASKED_EQ, mask, mask))
        if lib.seccomp_rule_add_array(ctx, deny, number, 1, cmp) != 0:
            raise SystemExit(f"seccomp_rule_add({syscall}) failed")
    if lib.seccomp_load(ctx) != 0:
        raise SystemExit("seccomp_load failed")


def child(out: str, seed: int, filtered: bool) -> None:
    if filtered:
        install_memory_deny_write_execute()
        try:
            mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | PROT_EXEC)
            raise SystemExit("the filter does not bite: a writable+executable mapping was allowed")
        except PermissionError:
            pass
    sys.path.insert(0, str(ROOT))
    from device.demo_table import DemoSettings, run_demo

    started = time.monotonic()
    result = run_demo(DemoSettings(seed=seed, out=Path(out), fast=True, display="none", recogniser="model",
                                   frame_width=640), report=lambda text: None)
    print(json.dumps({"scores": result["scores"], "seconds": time.monotonic() - started,
                      "recognition": result["stats"].recognition, "line": result["stats"].line()}))


def run_child(seed: int, filtered: bool) -> tuple[int, dict | None, str]:
    with tempfile.TemporaryDirectory(prefix="tarotmate-mdwe-") as out:
        env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "SDL_VIDEODRIVER": "dummy"}
        proc = subprocess.run([sys.executable, __file__, "--child", out, "--seed", str(seed)]
                              + (["--filtered"] if filtered else []), capture_output=True, text=True, env=env)
        lines = proc.stdout.strip().splitlines()
        data = json.loads(lines[-1]) if proc.returncode == 0 and lines else None
        return proc.returncode, data, proc.stderr.strip().splitlines()[-1:] and proc.stderr.strip().splitlines()[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--filtered", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.seed, args.filtered)
        return 0
    import onnxruntime

    print(f"{platform.machine()}, Python {platform.python_version()}, onnxruntime {onnxruntime.__version__}")
    results = {}
    for filtered in (False, True):
        rc, data, err = run_child(args.seed, filtered)
        label = "MemoryDenyWriteExecute" if filtered else "no filter"
        if rc != 0 or data is None:
            print(f"{label:>24}: FAILED (exit {rc}): {err}")
            results[filtered] = None
            continue
        results[filtered] = data
        print(f"{label:>24}: demo seed {args.seed} finished in {data['seconds']:.1f} s, scores {data['scores']}, "
              f"{data['recognition']}; {data['line']}")
    ok = results.get(True) is not None and results.get(False) is not None \
        and results[True]["scores"] == results[False]["scores"]
    print("MemoryDenyWriteExecute=yes: " + ("the demo runs under it, same scores" if ok else "NOT usable"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
