"""``cir-studio server start|migrate|token``: serve a PostgreSQL project to a team over HTTP.

``start`` migrates the project once before its workers start; under another process
manager (gunicorn) run ``migrate`` first: the workers refuse an out-of-date schema rather
than migrate inside a request.
"""

from __future__ import annotations

import argparse
import json

from studio.cli.project_arg import add_project_argument, cli_user, open_project
from studio.timeouts import lease_seconds

_URL_HELP = "the PostgreSQL project (postgresql://…)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "server",
        help="the team server: live queues with leases over HTTP (start, token)",
        description="Serve one PostgreSQL project to annotators over HTTP: each person asks "
        "for their next item and gets it with a lease; quotas are checked as they submit.",
    )
    actions = parser.add_subparsers(dest="server_command", metavar="ACTION", required=True)

    start = actions.add_parser(
        "start",
        help="serve the project (uvicorn; stateless workers share the database)",
        description="Workers keep nothing of their own: run several (--workers) or several "
        "machines behind a load balancer. For TLS give --ssl-certfile/--ssl-keyfile or put "
        "a reverse proxy in front.",
    )
    add_project_argument(start, _URL_HELP)
    start.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    start.add_argument("--port", type=int, default=8750, help="port (8750)")
    start.add_argument("--workers", type=int, default=1, help="worker processes (1)")
    start.add_argument(
        "--lease-seconds", type=float, default=lease_seconds(),
        help="how long a handed-out item stays reserved without a renewal "
             "(300; CIR_STUDIO_LEASE_SECONDS)",
    )
    start.add_argument("--ssl-certfile", help="serve HTTPS with this certificate (PEM)")
    start.add_argument("--ssl-keyfile", help="the certificate's private key (PEM)")
    start.add_argument(
        "--forwarded-allow-ips", metavar="IPS", default="",
        help="behind a reverse proxy: the proxies' addresses or networks, comma-separated "
        "(or '*'), whose X-Forwarded-For and X-Forwarded-Proto are believed; the client "
        "they name is the client (failed-login delays included). None by default: the "
        "client is the connection's peer",
    )
    start.add_argument(
        "--root-path", default="", metavar="PREFIX",
        help="the path prefix the proxy serves the API under (e.g. /cir), for the URLs "
        "of /openapi.json",
    )
    start.add_argument(
        "--edits-retention-days", type=float, default=30.0, metavar="DAYS",
        help="how long the server remembers applied edits (what makes a resent edit apply "
        "once); older ones are deleted at start and hourly; 0 keeps them all (30)",
    )
    start.set_defaults(func=run_start)

    migrate = actions.add_parser(
        "migrate",
        help="bring the project to the newest schema (before starting workers)",
        description="Run the schema migrations the project needs, in one transaction under "
        "a lock (a second migrate waits, then finds nothing to do). 'server start' does this "
        "itself; run it yourself before starting workers another way (gunicorn).",
    )
    add_project_argument(migrate, _URL_HELP)
    migrate.set_defaults(func=run_migrate)

    token = actions.add_parser("token", help="add, revoke or list people's tokens")
    token_actions = token.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    add = token_actions.add_parser(
        "add",
        help="make a token for a person and print it once",
        description="The token is printed once and stored only as a salted SHA-256 digest: "
        "keep it, or revoke it and make a new one.",
    )
    add.add_argument("name", metavar="NAME", help="the person (as their edits will be signed)")
    add.add_argument("--role", required=True,
                     choices=("annotator", "reviewer", "rater", "coordinator"))
    add_project_argument(add, _URL_HELP)
    add.set_defaults(func=run_token_add)
    revoke = token_actions.add_parser("revoke", help="revoke a person's token (at once)")
    revoke.add_argument("name", metavar="NAME")
    add_project_argument(revoke, _URL_HELP)
    revoke.set_defaults(func=run_token_revoke)
    listing = token_actions.add_parser("list", help="people with tokens, roles, revoked or not")
    add_project_argument(listing, _URL_HELP)
    listing.add_argument("--json", action="store_true", help="print as JSON")
    listing.set_defaults(func=run_token_list)


def _url(args: argparse.Namespace) -> str:
    from studio.errors import ProjectError

    url = getattr(args, "sub_project", None) or getattr(args, "project", None)
    if not url:
        raise ProjectError("Say which project with --project postgresql://…")
    return str(url)


def run_start(args: argparse.Namespace) -> int:
    from studio.server.run import serve

    if (args.ssl_certfile is None) != (args.ssl_keyfile is None):
        from studio.errors import StudioError

        raise StudioError("HTTPS needs both --ssl-certfile and --ssl-keyfile.")
    if args.edits_retention_days < 0:
        from studio.errors import StudioError

        raise StudioError("--edits-retention-days is 0 (keep all) or more.")
    if args.root_path and (not args.root_path.startswith("/") or args.root_path.endswith("/")):
        from studio.errors import StudioError

        raise StudioError("--root-path starts with '/' and does not end with one (/cir).")
    serve(_url(args), args.host, args.port, args.workers, args.lease_seconds,
          args.ssl_certfile, args.ssl_keyfile, args.forwarded_allow_ips, args.root_path,
          args.edits_retention_days)
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    from studio.server.run import refuse_file_project
    from studio.store.schema_upgrade import upgrade_project

    url = _url(args)
    refuse_file_project(url)
    print(upgrade_project(url).message())
    return 0


def run_token_add(args: argparse.Namespace) -> int:
    from studio.server.run import check_project
    from studio.server.tokens import add_token

    check_project(_url(args))
    with open_project(args) as project:
        token = add_token(project, args.name, args.role, cli_user())
    print(token)
    return 0


def run_token_revoke(args: argparse.Namespace) -> int:
    from studio.server.tokens import revoke

    with open_project(args) as project:
        count = revoke(project, args.name, cli_user())
    print(f"{args.name}: {count} token(s) revoked")
    return 0


def run_token_list(args: argparse.Namespace) -> int:
    from studio.store.repos import server as server_repo

    with open_project(args) as project:
        rows = server_repo.token_list(project)
    if args.json:
        print(json.dumps(rows, sort_keys=True))
        return 0
    for row in rows:
        state = f"revoked {row['revoked_at']}" if row["revoked_at"] else "live"
        print(f"{row['name']}\t{row['role']}\t{state}")
    return 0
