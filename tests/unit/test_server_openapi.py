"""The team server's contract: ``/openapi.json`` declares every status and body the server
sends, an independent OpenAPI fuzzer (schemathesis) finds no 5xx and no undeclared
answer over a real socket, every error is ``{"error": {"code", "message"}}`` with a code
the document lists, and a database that goes away is a 503 with ``Retry-After``."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cir_pg_engine
import pytest
from server_support import Server, call, tokens

from studio.store import Project

FUZZ_EXAMPLES = 5  # per operation, role and mode: about 300 requests in all


def _team_project(url: str, folder: Path) -> None:
    """Submitted captions to review, attribute suggestions and rating items for rae."""
    from studio.store.transfer import copy_project
    from studio.team.rehearsal import build_project

    build_project(folder / "lite", ("rae", "ray"), n_images=30, n_pairs=16).close()
    copy_project(folder / "lite", url)


@pytest.fixture(scope="module")
def served(postgresql_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    url = cir_pg_engine.new_database(postgresql_server.get_uri())
    _team_project(url, tmp_path_factory.mktemp("openapi"))
    keys = tokens(url, {"lead": "coordinator", "rae": "rater", "ann": "annotator"})
    server = Server(url).start()
    yield {"url": url, "base": server.base, "tokens": keys, "server": server}
    server.stop()


def _operations(document: dict) -> list[tuple[str, str, dict]]:
    return [(method.upper(), path, operation) for path, methods in document["paths"].items()
            for method, operation in methods.items()]


def _error_codes(document: dict) -> set[str]:
    return set(document["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["enum"])


def test_every_answer_of_every_operation_is_declared_with_a_body(served: dict) -> None:
    status, document = call(served["base"], "GET", "/openapi.json")
    assert status == 200 and document["openapi"].startswith("3.1")
    assert {"invalid_body", "unauthorized", "forbidden", "not_found", "conflict", "too_large",
            "invalid", "unavailable"} <= _error_codes(document)
    for method, path, operation in _operations(document):
        answers = operation["responses"]
        ok = answers["200"]["content"]
        assert ok and all("schema" in kind for kind in ok.values()), f"{method} {path}: {ok}"
        if not path.startswith("/v1/"):
            continue
        assert {"401", "403", "404", "422", "503"} <= set(answers), f"{method} {path}"
        assert "Retry-After" in answers["503"]["headers"]
        if method in ("POST", "PUT"):
            assert {"400", "413"} <= set(answers), f"{method} {path}"
        for code, answer in answers.items():
            if code.startswith(("4", "5")):
                schema = answer["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, f"{path} {code}"


def test_a_body_not_utf8_or_not_json_gets_a_declared_error(served: dict) -> None:
    """Today's server answered these with an undeclared 400 ``{"error": "…"}``."""
    base, lead = served["base"], served["tokens"]["lead"]
    document = call(base, "GET", "/openapi.json")[1]
    codes = _error_codes(document)
    bodies = {b'{"text": "\xff\xfe"}': 400, b'{"edit_uid": "abc': 400, b"[1, 2]": 422,
              b"\x00\x01": 400}
    for method, path, operation in _operations(document):
        if method not in ("POST", "PUT"):
            continue
        concrete = path.replace("{pair_id}", "1").replace("{caption_id}", "1").replace(
            "{image_id}", "img").replace("{assignment_id}", "1").replace("{lease_id}", "1")
        for raw, expected in bodies.items():
            status, answer = call(base, method, concrete, lead, raw=raw)
            assert status == expected and str(status) in operation["responses"], (
                f"{method} {path} {raw!r}: {status} {answer}")
            assert set(answer) == {"error"} and set(answer["error"]) == {"code", "message"}
            assert answer["error"]["code"] in codes and answer["error"]["message"]


def test_errors_outside_the_routes_have_the_same_shape(served: dict) -> None:
    base, lead = served["base"], served["tokens"]["lead"]
    codes = _error_codes(call(base, "GET", "/openapi.json")[1])
    for method, path, expected in (("GET", "/v1/no-such-route", 404),
                                   ("GET", "/v1/captions/next", 405),
                                   ("PUT", "/v1/captions/abc/draft", 404),
                                   ("POST", "/v1/leases/99999999999999999999/renew", 404),
                                   ("GET", "/v1/images/x?size=9", 422)):
        status, answer = call(base, method, path, lead, {} if method != "GET" else None)
        assert status == expected, (path, answer)
        assert answer["error"]["code"] in codes and answer["error"]["message"], path


def test_an_edit_uid_resent_for_another_edit_is_refused(served: dict) -> None:
    """Found by the fuzzer: a uid applied as a draft and sent again as a submission (or on
    another pair) got the draft's answer back, as if the submission had been made."""
    base, ann = served["base"], served["tokens"]["ann"]
    item = call(base, "POST", "/v1/captions/next", ann, {})[1]["item"]
    pair = item["pair_id"]
    edit = {"edit_uid": "ann-once-0001", "text": "is darker"}
    first = call(base, "PUT", f"/v1/captions/{pair}/draft", ann, edit)
    assert first[0] == 200 and first[1]["status"] == "draft"
    status, answer = call(base, "POST", f"/v1/captions/{pair}/submit", ann, edit)
    assert status == 409 and "another edit" in answer["error"]["message"], answer
    assert call(base, "PUT", f"/v1/captions/{pair}/draft", ann, edit) == first  # resent
    status, answer = call(base, "POST", f"/v1/captions/{pair}/submit", ann,
                          {**edit, "edit_uid": "ann-once-0002"})
    assert status == 200 and answer["status"] == "submitted"


def test_the_fuzzer_finds_no_server_error_and_no_undeclared_answer(served: dict) -> None:
    """schemathesis generates requests from /openapi.json (valid and invalid ones) for
    every operation, as a coordinator and as a rater, over the socket, and checks each
    answer against the document."""
    import hypothesis
    import schemathesis
    from schemathesis import GenerationMode
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    base, keys = served["base"], served["tokens"]
    schema = schemathesis.openapi.from_url(base + "/openapi.json")
    checks = [not_a_server_error, status_code_conformance, content_type_conformance,
              response_schema_conformance]
    failures: list[str] = []
    requests = [0]
    started = time.monotonic()

    def fuzz(operation: Any, person: str, mode: Any) -> None:
        headers = {"Authorization": f"Bearer {keys[person]}"}

        @hypothesis.settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
                             derandomize=True, phases=[hypothesis.Phase.generate],
                             suppress_health_check=list(hypothesis.HealthCheck))
        @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            requests[0] += 1
            try:
                case.call_and_validate(base_url=base, headers=headers, checks=checks,
                                       timeout=30)
            except BaseException as error:  # schemathesis's FailureGroup: collected below
                if isinstance(error, KeyboardInterrupt):
                    raise
                failures.append(f"{operation.label} as {person}, {mode.value}: "
                                f"{str(error)[:800]}")

        try:
            run()
        except hypothesis.errors.Unsatisfiable:
            assert mode == GenerationMode.NEGATIVE  # nothing to make invalid (no input)

    for result in schema.get_all_operations():
        for person in ("lead", "rae"):
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                fuzz(result.ok(), person, mode)
    requests = requests[0]
    assert requests > 200
    assert failures == [], "\n\n".join(failures[:10])
    assert served["server"].alive()
    log = served["server"].stderr()
    assert "Traceback" not in log, log[-3000:]  # nothing failed inside, answered or not
    print(f"fuzzer: {requests} requests in {time.monotonic() - started:.1f} s")


def test_a_database_that_goes_away_is_a_503_with_retry_after(tmp_path: Path) -> None:
    """PostgreSQL stopped under a running server: every request is a declared 503 with
    Retry-After (not a 500), and the server answers again once the database is back."""
    from pgserver._commands import pg_ctl

    folder = Path(tempfile.mkdtemp(prefix="cir-pg-down-"))
    pg = cir_pg_engine.start_server(folder / "data")
    server = None
    try:
        url = cir_pg_engine.new_database(pg.get_uri())
        with Project.create(url, local_path=tmp_path / "p.pg"):
            pass
        key = tokens(url, {"lead": "coordinator"})["lead"]
        server = Server(url).start()
        assert call(server.base, "GET", "/v1/progress", key)[0] == 200
        pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=pg.pgdata, user=pg.system_user)
        document = call(server.base, "GET", "/openapi.json")[1]  # no database needed
        for method, path, body in (("GET", "/v1/progress", None),
                                   ("GET", "/v1/whoami", None),
                                   ("POST", "/v1/captions/next", {}),
                                   ("PUT", "/v1/captions/1/draft",
                                    {"edit_uid": "down-00001", "text": "is red"})):
            status, answer, retry = _with_header(server.base, method, path, key, body)
            assert status == 503, (path, status, answer)
            assert "503" in document["paths"][_template(path)][method.lower()]["responses"]
            assert answer["error"]["code"] == "unavailable" in _error_codes(document)
            assert "Cannot reach" in answer["error"]["message"]
            assert retry is not None and int(retry) > 0
        assert server.alive()
        pg.ensure_postgres_running()
        deadline = time.monotonic() + 30
        while call(server.base, "GET", "/v1/progress", key)[0] != 200:
            assert time.monotonic() < deadline, "the server did not come back"
            time.sleep(0.5)
    finally:
        if server is not None:
            server.stop()
        pg.ensure_postgres_running()  # so that cleanup finds it
        pg.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def _template(path: str) -> str:
    return path.replace("/1/", "/{pair_id}/")


def _with_header(base: str, method: str, path: str, token: str,
                 body: Any) -> tuple[int, Any, str | None]:
    import json
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read()), answer.headers.get("Retry-After")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), error.headers.get("Retry-After")
