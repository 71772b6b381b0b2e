"""``tarotmate club serve|simulate``: the club server, and a whole evening of simulated tables."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

from engine.errors import TarotmateError

HELP = "the club server (serve) and simulated tables publishing to it (simulate)"
DEFAULT_DB = "tarotmate-club.db"


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="club_command", metavar="ACTION", required=True)
    serve = sub.add_parser("serve", help="serve the club's pages, API and director pages",
                           description="Serve the club: live board, standings, players, director pages, "
                                       "and the API the tables publish to.")
    serve.add_argument("--db", default=os.environ.get("TAROTMATE_CLUB_DB", DEFAULT_DB),
                       help=f"SQLite file (default {DEFAULT_DB}) or postgresql://USER@HOST/DB")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; "
                                                            "0.0.0.0 for the whole LAN)")
    serve.add_argument("--port", type=int, default=8377, help="port (default 8377)")
    serve.add_argument("--director-password-file", metavar="FILE",
                       help="file whose first line is the director's password (sets it on the first run)")
    serve.add_argument("--no-advertise", action="store_true",
                       help="do not announce the server on the LAN by mDNS/DNS-SD")
    serve.add_argument("--name", default="Tarotmate club", help="the name announced on the LAN")

    sim = sub.add_parser("simulate", help="simulated tables pair and publish an evening of deals",
                         description="N simulated tables pair through the director API, play D deals each "
                                     "through the engine and publish them through the table's outbox; exits 0 "
                                     "once every deal is acknowledged.")
    sim.add_argument("--server", required=True, help="the club server's URL, e.g. http://127.0.0.1:8377")
    sim.add_argument("--tables", type=int, required=True, help="number of tables")
    sim.add_argument("--deals", type=int, required=True, help="deals per table")
    sim.add_argument("--seed", type=int, default=0, help="random seed of the deals (default 0)")
    sim.add_argument("--director-password-file", metavar="FILE", required=True,
                     help="file whose first line is the director's password")
    sim.add_argument("--players", type=int, default=4, choices=(3, 4, 5), help="players per table (default 4)")
    sim.add_argument("--pace", type=float, default=0.0, metavar="S", help="mean seconds between deals at a table")
    sim.add_argument("--outbox-dir", help="keep the tables' outboxes here (default: a temporary folder)")
    sim.add_argument("--timeout", type=float, default=900.0, metavar="S",
                     help="give up after S seconds (default 900)")
    sim.add_argument("--json", action="store_true", help="print a JSON summary on stdout")

    drop = sub.add_parser("dropin", help="print what tarotmate.service must open for [web] and [club]",
                          description="Print the systemd drop-in that lets tarotmate.service (which denies "
                                      "all IP traffic) reach the LAN for the configured [web] and [club].")
    drop.add_argument("--config", metavar="FILE", help="configuration file (default: as tarotmate run)")


def run(args: argparse.Namespace) -> int:
    if args.club_command == "serve":
        return serve(args)
    if args.club_command == "dropin":
        return dropin(args)
    return simulate(args)


def dropin(args: argparse.Namespace) -> int:
    from device.club.unit import dropin_for
    from device.config import default_config_path, load_config

    text = dropin_for(load_config(args.config or default_config_path()))
    if text is None:
        print("tarotmate club dropin: [web] and [club] are disabled: tarotmate.service needs no network",
              file=sys.stderr)
        return 1
    print(text, end="")
    return 0


def serve(args: argparse.Namespace) -> int:
    from device.club.auth import read_password_file
    from device.club.db import Database
    from device.club.discovery import Advertiser, advertised_address
    from device.club.server import create_app, make_server
    from device.club.store import ClubStore
    from device.web.serving import listen

    if not 1 <= args.port <= 65535:
        raise TarotmateError(f"--port {args.port}: expected 1..65535")
    password = read_password_file(args.director_password_file) if args.director_password_file else None
    store = ClubStore(Database(args.db))
    if not store.has_director_password():
        if password is None:
            print("tarotmate club: warning: no director password yet; director pages stay closed until the "
                  "server is started with --director-password-file FILE", file=sys.stderr)
        else:
            store.set_director_password(password)
    where = "PostgreSQL" if store.db.dialect == "postgresql" else os.path.abspath(args.db)
    advertiser = None
    address = None if args.no_advertise else advertised_address(args.host)
    if address:
        try:
            advertiser = Advertiser(args.name, address, args.port)
        except OSError as exc:
            print(f"tarotmate club: warning: not announced on the LAN ({exc})", file=sys.stderr)
    try:
        sock = listen(args.host, args.port)
        print(f"tarotmate club: serving on http://{args.host}:{args.port} (database: {where})", file=sys.stderr,
              flush=True)
        server = make_server(create_app(store), args.host, args.port)
        # What start-up made lives as long as the server: out of the collector's way, so that a full
        # collection under load walks only what the requests made (~100 ms less at its worst on x86-64).
        gc.collect()
        gc.freeze()
        server.run(sockets=[sock])
    finally:
        if advertiser is not None:
            advertiser.close()
        store.db.close()
    return 0


def simulate(args: argparse.Namespace) -> int:
    from device.club.auth import read_password_file
    from device.club.simulate import print_progress, simulate as run_simulation

    password = read_password_file(args.director_password_file)
    result = run_simulation(args.server, args.tables, args.deals, password, seed=args.seed, players=args.players,
                            workdir=args.outbox_dir, pace_s=args.pace, timeout_s=args.timeout,
                            progress=print_progress)
    lat = sorted(result.latencies)
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else None
    summary = {"tables": result.tables, "deals": result.deals, "acknowledged": result.acked,
               "refused": [{"id": u, "reason": r} for u, r in result.refused], "seconds": round(result.seconds, 2),
               "publish_p99_ms": None if p99 is None else round(p99 * 1000, 1), "totals": result.totals}
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    for uid, reason in result.refused:
        print(f"tarotmate club simulate: deal {uid} refused: {reason}", file=sys.stderr)
    if not result.ok:
        print(f"tarotmate club simulate: {result.acked}/{result.deals} deals acknowledged", file=sys.stderr)
        return 1
    print(f"tarotmate club simulate: all {result.deals} deals acknowledged in {result.seconds:.1f} s",
          file=sys.stderr)
    return 0
