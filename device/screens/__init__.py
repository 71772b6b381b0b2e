"""Tarotmate's OLED screens: pure functions from a view model to a 128x64 image.

Every ``render_*`` function has the signature
``render_x(view, lang="en", style="french", tick=None) -> PIL.Image.Image``
(mode "1", 128x64); ``tick`` advances the marquee of texts too long to fit
(``None``: cut them with an ellipsis). The view models are in
:mod:`device.screens.views`.
"""

from __future__ import annotations

from device.screens.enroll import (
    render_enroll_card,
    render_enroll_confirm,
    render_enroll_done,
    render_enroll_review,
)
from device.screens.camera_check import CameraCheckView, render_camera_check
from device.screens.game_over import render_game_over
from device.screens.menu import render_menu
from device.screens.online import OnlineView, render_online
from device.screens.status import render_camera_lost, render_camera_status, render_confirm_card
from device.screens.tarot import (
    render_bidding,
    render_deal_end,
    render_score_table,
    render_setup,
    render_target,
    render_trick,
    render_violation,
)
from device.screens.trivium import render_announcement, render_trivium
from device.screens import views

# View class -> render function, for the app's "show(view)".
RENDERERS = {
    views.SetupView: render_setup,
    views.BiddingView: render_bidding,
    views.TargetView: render_target,
    views.TrickView: render_trick,
    views.ViolationView: render_violation,
    views.DealEndView: render_deal_end,
    views.ScoreTableView: render_score_table,
    views.GameOverView: render_game_over,
    views.TriviumView: render_trivium,
    views.AnnouncementView: render_announcement,
    views.CameraStatusView: render_camera_status,
    views.CameraLostView: render_camera_lost,
    views.ConfirmCardView: render_confirm_card,
    views.MenuView: render_menu,
    views.EnrollCardView: render_enroll_card,
    views.EnrollConfirmView: render_enroll_confirm,
    views.EnrollReviewView: render_enroll_review,
    views.EnrollDoneView: render_enroll_done,
    OnlineView: render_online,
    CameraCheckView: render_camera_check,
}


def render(view, lang: str = "en", style: str = "french", tick: int | None = None):
    """Render any view model with the screen made for its class."""
    try:
        renderer = RENDERERS[type(view)]
    except KeyError:
        raise TypeError(f"no screen for {type(view).__name__}") from None
    return renderer(view, lang, style, tick)


__all__ = [name for name in globals() if name.startswith("render")] + ["RENDERERS", "views"]
