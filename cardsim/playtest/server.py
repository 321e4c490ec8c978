"""The playtest web server: the page (``static/``) and a small JSON API, on 127.0.0.1 only.

Security model: the server listens on the loopback interface only, and every request
(the page, its scripts, the API) must carry the random token printed in the URL, as
``?token=...`` or the ``X-Token`` header; anything else gets 403. The client never names a
file: records are downloaded from the server's own game, never read from a path the page
gives. A move names the game's ``version`` (its move counter): a stale or illegal one gets
a 4xx with the reason and leaves the game unchanged.

API (JSON): ``GET /api/state`` (``?step=K`` in the viewer), ``POST /api/act``
``{"version", "action"}``, ``POST /api/advance`` ``{"version"}`` (one move of the built-in
seat to move), ``POST /api/hint`` ``{"version"}``, ``GET /api/review``, ``POST /api/new``
(the next game of the seed), ``GET /api/record`` (the game as a record, to save).
"""
from __future__ import annotations

import hmac
import json
import secrets
import socket
from pathlib import Path
from typing import Any, Callable, Optional

from cardsim.simcore.framework.config import ConfigError

STATIC = Path(__file__).with_name("static")
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}


def need_starlette() -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ConfigError("the playtest page needs Starlette and uvicorn: pip install 'cardsim[play]'") from None


def build_app(session_factory: Callable[[], Any], token: Optional[str] = None):
    """The Starlette app serving one session (``session_factory()`` makes it; ``/api/new``
    makes the next). ``app.state.token`` is the token every request must carry."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    token = token or secrets.token_urlsafe(24)
    holder = {"session": session_factory()}

    def refuse(status: int, reason: str) -> JSONResponse:
        return JSONResponse({"error": reason}, status_code=status)

    def authorised(request: Request) -> bool:
        given = request.query_params.get("token") or request.headers.get("x-token") or ""
        return hmac.compare_digest(given.encode(), token.encode())

    async def body(request: Request) -> dict:
        try:
            data = json.loads((await request.body()) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ConfigError("the request body is not JSON") from None
        if not isinstance(data, dict):
            raise ConfigError("the request body must be a JSON object")
        return data

    async def call(fn, *args) -> JSONResponse:
        from cardsim.playtest.session import StaleError, TurnError

        try:
            return JSONResponse(await run_in_threadpool(fn, *args))
        except StaleError as exc:
            return refuse(409, str(exc))
        except TurnError as exc:
            return refuse(409, str(exc))
        except ConfigError as exc:
            return refuse(400, str(exc))

    async def page(request: Request) -> Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        return Response(html.replace("{{TOKEN}}", token), media_type=_TYPES[".html"],
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        files = {p.name: p for p in STATIC.iterdir() if p.is_file()}  # served by name only, never by path
        if name not in files:
            return refuse(404, "no such file")
        return Response(files[name].read_bytes(), media_type=_TYPES.get(files[name].suffix, "application/octet-stream"),
                        headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> JSONResponse:
        s = holder["session"]
        step = request.query_params.get("step")
        if step is not None and not hasattr(s, "act"):
            try:
                step_no = int(step)
            except ValueError:
                return refuse(400, "step must be an integer")
            return await call(s.state, step_no)
        return await call(s.state)

    async def act(request: Request) -> JSONResponse:
        s = holder["session"]
        if not hasattr(s, "act"):
            return refuse(400, "this is the replay viewer: there is nothing to play")
        try:
            data = await body(request)
        except ConfigError as exc:
            return refuse(400, str(exc))
        if "action" not in data or "version" not in data:
            return refuse(400, "an action needs {\"version\": N, \"action\": ID}")
        return await call(s.act, data["action"], data["version"])

    async def advance(request: Request) -> JSONResponse:
        s = holder["session"]
        if not hasattr(s, "advance"):
            return refuse(400, "this is the replay viewer: there is nothing to play")
        try:
            data = await body(request)
        except ConfigError as exc:
            return refuse(400, str(exc))
        return await call(s.advance, data.get("version"))

    async def hint(request: Request) -> JSONResponse:
        s = holder["session"]
        if not hasattr(s, "advise"):
            return refuse(400, "this is the replay viewer: the coach advises a game you play")
        try:
            data = await body(request)
        except ConfigError as exc:
            return refuse(400, str(exc))
        return await call(s.advise, data.get("version"))

    async def review(request: Request) -> JSONResponse:
        s = holder["session"]
        if not hasattr(s, "review"):
            return refuse(400, "this is the replay viewer: no review")
        return await call(s.review)

    async def new_game(request: Request) -> JSONResponse:
        s = holder["session"]
        if not hasattr(s, "act"):
            return refuse(400, "this is the replay viewer")

        def make():
            old = holder["session"]
            nxt = session_factory(index=old.index + 1, version=old.version + 1)
            holder["session"] = nxt
            old.close()
            return nxt.state()
        return await call(make)

    async def record(request: Request) -> Response:
        s = holder["session"]
        rec = await run_in_threadpool(s.record)
        return Response(json.dumps(rec, ensure_ascii=False, indent=1), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{s.record_name()}"'})

    routes = [Route("/", page), Route("/static/{name}", static), Route("/api/state", state),
              Route("/api/act", act, methods=["POST"]), Route("/api/advance", advance, methods=["POST"]),
              Route("/api/hint", hint, methods=["POST"]), Route("/api/review", review),
              Route("/api/new", new_game, methods=["POST"]), Route("/api/record", record)]

    class TokenGate:
        """403 for any request without the token (checked before routing)."""

        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            if scope["type"] == "http" and not authorised(Request(scope)):
                await refuse(403, "forbidden: this page needs the token of its URL")(scope, receive, send)
                return
            await self.app(scope, receive, send)

    from starlette.middleware import Middleware

    app = Starlette(routes=routes, middleware=[Middleware(TokenGate)])
    app.state.token = token
    app.state.holder = holder
    return app


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_port(port: int) -> None:
    """One-line error when ``port`` cannot be listened on (in use, privileged, out of range)."""
    if not 1 <= port <= 65535:
        raise ConfigError(f"--port must be 1..65535, got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})") from None


def serve(app, port: Optional[int] = None, *, open_browser: bool = True, query: str = "",
          out=None) -> None:
    """Serve ``app`` on 127.0.0.1 (a free port unless ``port``), print the one ``playtest:``
    line when ready, open the browser unless told not to; return on Ctrl-C."""
    import sys

    import uvicorn

    out = out or sys.stdout
    if port is None:
        port = free_port()
    else:
        check_port(port)
    url = f"http://127.0.0.1:{port}/?token={app.state.token}{query}"

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if self.started:
                out.write(f"playtest: {url}\n")
                out.flush()
                if open_browser:
                    import webbrowser

                    webbrowser.open(url)

    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                            lifespan="off")
    server = Server(config)
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn shut down cleanly, then re-raised the Ctrl-C
        pass
    except SystemExit:  # uvicorn could not bind (a race with another program): said below
        pass
    if not server.started:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}")
