"""The demo's screen recorder: distinct screens as PNG files, then one GIF."""

from PIL import Image

from device.hardware.recorder import ScreenRecorder


def screen(value):
    image = Image.new("1", (128, 64))
    image.putpixel((value, 0), 1)
    return image


def test_only_new_screens_are_kept_and_numbering_resumes(tmp_path):
    recorder = ScreenRecorder(tmp_path)
    assert recorder.show(screen(1)) and not recorder.show(screen(1)) and recorder.show(screen(2))
    again = ScreenRecorder(tmp_path)  # a resumed demo goes on after the last frame
    again.show(screen(3))
    assert [p.name for p in again.frames()] == ["000000.png", "000001.png", "000002.png"]


def test_gif_skips_a_broken_frame(tmp_path):
    recorder = ScreenRecorder(tmp_path)
    for value in range(5):
        recorder.show(screen(value))
    (tmp_path / "000002.png").write_bytes(b"\x89PNG broken")
    count = recorder.write_gif(tmp_path / "demo.gif", scale=2)
    assert count == 4
    with Image.open(tmp_path / "demo.gif") as gif:
        assert gif.size == (256, 128) and gif.n_frames == 4
