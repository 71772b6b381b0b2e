"""A wider locator started from a narrower one computes the same maps (``vision.training.widen_locator``)."""

import pytest

torch = pytest.importorskip("torch")

from vision.training.build_locator import net_width_of  # noqa: E402
from vision.training.locator_model import LocatorNet  # noqa: E402
from vision.training.widen_locator import main, widen_state  # noqa: E402


def _trained_like(seed: int) -> LocatorNet:
    """A width-1 locator with weights and batch-norm statistics far from their initial values."""
    torch.manual_seed(seed)
    net = LocatorNet(width=1)
    with torch.no_grad():
        for name, t in net.state_dict().items():
            if t.dtype.is_floating_point:
                t.copy_(t + 0.2 * torch.randn_like(t))
                if name.endswith("running_var"):
                    t.abs_().add_(0.1)
    return net


@pytest.mark.parametrize("width", [2, 3])
def test_the_widened_locator_computes_the_narrow_ones_maps(width):
    narrow = _trained_like(width).eval()
    wide = LocatorNet(width=width)
    wide.load_state_dict(widen_state(narrow.state_dict(), width, seed=1))
    wide.eval()
    x = torch.rand(2, 3, 96, 160)
    with torch.no_grad():
        a, b = narrow(x), wide(x)
    assert net_width_of(wide.state_dict()) == width
    assert torch.allclose(a, b, atol=1e-4, rtol=1e-4), float((a - b).abs().max())


def test_the_copies_differ_so_training_pulls_them_apart():
    state = widen_state(_trained_like(0).state_dict(), 2, seed=1)
    w = state["s4.pw.0.weight"]  # a 1x1 convolution reading 48 channels, copies of 24
    assert not torch.allclose(w[:, :24], w[:, 24:])
    # yet the batch norms' statistics are plain copies
    rv = state["s4.pw.1.running_var"]
    assert torch.equal(rv[:24], rv[24:])


def test_a_narrower_or_unrelated_target_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError):
        widen_state(LocatorNet(width=2).state_dict(), 3)
    with pytest.raises(ValueError):
        widen_state({"stem.0.0.weight": torch.zeros(16, 3, 3, 3)}, 2)
    src = tmp_path / "w1.pt"
    torch.save(_trained_like(0).state_dict(), src)
    assert main(["--from", str(src), "--to", str(tmp_path / "w2" / "locator_full.pt"), "--width", "2"]) == 0
    assert (tmp_path / "w2" / "locator_full.pt").is_file()
    assert main(["--from", str(tmp_path / "w2" / "locator_full.pt"), "--to", str(tmp_path / "x.pt"), "--width", "3"]) == 2
    assert "multiple" in capsys.readouterr().err
