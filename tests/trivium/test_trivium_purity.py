"""The Trivium engine is pure Python: no camera, screen, GPIO or array library."""

import subprocess
import sys


def test_engine_trivium_imports_no_heavy_library():
    code = (
        "import sys, engine.trivium\n"
        "engine.trivium.random_game(2, 1)\n"
        "heavy = [m for m in ('cv2', 'numpy', 'luma', 'gpiozero', 'PIL', 'onnxruntime') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
