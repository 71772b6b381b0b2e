"""The table page's live view: what the camera sees, once a second, with the check's advice.

``GET /live`` is the page; ``GET /api/live`` the JSON of the latest snapshot
(the advice, the cards the tracker sees with their names and corners, the
card outlines the check found, the zones, all in normalised coordinates, and
a ``version`` that changes with each snapshot); ``GET /api/live.jpg`` the
snapshot (a 640-pixel-wide JPEG). The page polls once a second and draws the
zones, outlines and names over the picture itself, so the table only encodes
one small JPEG a second, and only while someone watches
(:class:`device.app.camera_check.DeviceCameraCheck`).
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

HERE = Path(__file__).parent


def live_routes(camera) -> list[Route]:
    """The live view's routes; ``camera`` is a ``DeviceCameraCheck`` (or ``None``: no camera)."""
    page = (HERE / "templates" / "live.html").read_text(encoding="utf-8")

    async def live_page(request: Request) -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    async def live_state(request: Request) -> JSONResponse:
        state = camera.live_state() if camera is not None else {"advice": [], "cards": [], "zones": [],
                                                                 "size": None, "version": 0}
        return JSONResponse(state, headers={"Cache-Control": "no-store"})

    async def live_jpeg(request: Request) -> Response:
        data = camera.jpeg() if camera is not None else None
        if data is None:
            return Response(status_code=404, headers={"Cache-Control": "no-store"})
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    return [Route("/live", live_page), Route("/api/live", live_state), Route("/api/live.jpg", live_jpeg)]
