"""The one Server-Sent Events writer (device.web.feed.event_stream): the club's change stream and the
table page's state stream."""

from __future__ import annotations

import asyncio
import json

from device.web.feed import ChangeFeed
from device.web.server import LiveState


async def _take(stream, feed, changes):
    got = [await stream.__anext__()]
    for change in changes:
        change()
        got.append(await asyncio.wait_for(stream.__anext__(), 2))
    feed.close()
    got += [chunk async for chunk in stream]
    return got


def test_the_change_stream_sends_each_new_version_then_ends_when_the_feed_closes():
    feed = ChangeFeed()
    feed.bump()
    got = asyncio.run(_take(feed.stream(), feed, [feed.bump, feed.bump]))
    assert got == ["retry: 2000\nevent: change\ndata: 1\n\n", "event: change\ndata: 2\n\n",
                   "event: change\ndata: 3\n\n"]


def test_the_state_stream_sends_the_whole_new_state_and_pings_when_nothing_changes():
    live = LiveState()
    live.update({"title": "Window", "n": 1})
    got = asyncio.run(_take(live.stream(), live.feed, [lambda: live.update({"title": "Window", "n": 2})]))
    assert got[0].startswith("retry: 2000\nevent: state\ndata: ") and got[1].startswith("event: state\ndata: ")
    assert [json.loads(chunk.split("data: ", 1)[1])["n"] for chunk in got] == [1, 2]
    assert all(chunk.endswith("\n\n") for chunk in got)

    from device.web.feed import event_stream

    async def quiet():
        feed = ChangeFeed()
        stream = event_stream(feed, "state", lambda: "{}", keepalive=0.01)
        first = await stream.__anext__()
        ping = await asyncio.wait_for(stream.__anext__(), 2)
        feed.close()
        return first, ping, [chunk async for chunk in stream]

    assert asyncio.run(quiet()) == ("retry: 2000\nevent: state\ndata: {}\n\n", ": ping\n\n", [])
