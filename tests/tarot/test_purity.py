"""The rules engine stays pure Python: no vision, display or GPIO library."""

import subprocess
import sys


def test_engine_tarot_imports_no_hardware_or_vision_library():
    code = ("import sys, engine.tarot, engine.tarot.record, engine.tarot.game;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('cv2', 'numpy', 'luma', 'gpiozero', 'PIL', 'onnxruntime', 'device', 'vision')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
