"""``cir-studio index build|status|query``: the project's embedding index from the terminal."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, open_project
from studio.errors import StudioError


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser("index", help="embed images and search them")
    actions = command.add_subparsers(dest="index_command", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build",
        help="embed new images and create or update the index",
        description="Embed every image not yet in the embedding cache (resumable), then "
        "create the index or bring it in step with the project's images.",
    )
    _common(build)
    build.add_argument(
        "--index",
        dest="kind",
        default="flat",
        help="index kind: flat (exact, default), ivf (approximate), torch (GPU)",
    )
    build.add_argument("--rebuild", action="store_true", help="start the index afresh")
    build.add_argument("--batch-size", type=int, default=64, help="images per batch (64)")
    build.add_argument("--json", action="store_true", help="print a JSON report")
    build.set_defaults(func=run_build)

    status = actions.add_parser("status", help="what is indexed and what is out of date")
    _common(status, device=False)
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(func=run_status)

    query = actions.add_parser(
        "query",
        help="search by text, image, or both (composed)",
        description="Search the index. --text and --image together make a composed query "
        "(the normalised sum of both vectors). --queries FILE reads one text per line and "
        "prints one JSON list per line.",
    )
    _common(query)
    query.add_argument("--text", help="query text")
    query.add_argument("--image", help="a project image id or an image file")
    query.add_argument("--queries", type=Path, help="file with one text query per line")
    query.add_argument("--k", type=int, default=10, help="results per query (10)")
    query.add_argument("--category", help="only images of this category")
    query.add_argument("--split", help="only images of this split")
    query.add_argument("--json", action="store_true", help='print [{"id", "score"}, ...]')
    query.set_defaults(func=run_query)


def _common(parser: argparse.ArgumentParser, device: bool = True) -> None:
    add_project_argument(parser)
    # Own ``dest`` names, like --project: the top-level --model/--device stay usable too.
    parser.add_argument(
        "--model",
        dest="sub_model",
        metavar="NAME",
        help="embedding model spec (default: settings, else demo)",
    )
    if device:
        parser.add_argument(
            "--device", dest="sub_device", metavar="D", help="auto, cpu, cuda, cuda:N or mps"
        )


def _model_name(args: argparse.Namespace) -> str:
    from studio.settings import Settings

    return getattr(args, "sub_model", None) or getattr(args, "model", None) or Settings.load().model


def _device(args: argparse.Namespace) -> str | None:
    return getattr(args, "sub_device", None) or getattr(args, "device", None)


def run_build(args: argparse.Namespace) -> int:
    from studio.sessions.preparation import prepare_retrieval, skipped_text
    from studio.settings import Settings

    if args.batch_size < 1:
        raise StudioError("--batch-size must be at least 1.")
    try:
        with open_project(args) as project, TerminalProgress("Indexing") as progress:
            # The same rule as the Retrieval pane: attributes from text first when the
            # project has none (sessions read facets from them), then the index.
            prepared = prepare_retrieval(
                project,
                _model_name(args),
                _device(args),
                actor=Settings.load().user_name or "cli",
                kind=args.kind,
                rebuild=args.rebuild,
                batch_size=args.batch_size,
                progress=progress,
            )
    except ValueError as error:  # an unknown index kind
        raise StudioError(str(error)) from error
    report = prepared.index
    if args.json:
        print(json.dumps(prepared.to_dict(), sort_keys=True))
        return 0
    if nothing := prepared.nothing_readable():
        print(nothing)
        return 1
    if prepared.extracted is not None:
        print(
            f"The project had no attribute labels: read {prepared.extracted.get('labels', 0)} "
            f"from the product text of {prepared.extracted.get('labelled_images', 0)} images."
        )
    print(
        f"Indexed {report.indexed} images with '{report.model}' ({report.kind}): "
        f"{report.embedded} embedded, {report.cached} from the cache, {report.added} added, "
        f"{report.removed} removed, {skipped_text(report)}, in {report.seconds:.1f} s."
    )
    for image_id, reason in report.skipped[:20]:
        print(f"  skipped {image_id}: {reason}")
    if len(report.skipped) > 20:
        print(f"  ... and {len(report.skipped) - 20} more")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from studio.index_service import index_status

    with open_project(args) as project:
        status = index_status(project, _model_name(args))
    if args.json:
        print(json.dumps(status, sort_keys=True))
    elif not status["built"]:
        print(
            f"No index for '{status['model']}' yet ({status['project_images']} images); run "
            "'cir-studio index build'."
        )
    else:
        print(
            f"{status['indexed']} of {status['project_images']} images indexed with "
            f"'{status['model']}' ({status['kind']}, {status['dim']}-d), updated "
            f"{status['updated_at']}; {status['to_add']} to add, {status['to_remove']} to "
            f"remove, {status['changed']} changed."
        )
    return 0


def run_query(args: argparse.Namespace) -> int:
    from studio.index_service import ProjectIndex, load_project_model, query_vector

    if not (args.text or args.image or args.queries):
        raise StudioError("Give --text, --image, both, or --queries FILE.")
    if args.queries and (args.text or args.image):
        raise StudioError("--queries cannot be combined with --text or --image.")
    if args.k < 1:
        raise StudioError("--k must be at least 1.")
    model = load_project_model(_model_name(args), _device(args))
    filters = {"category": args.category, "split": args.split}
    with open_project(args) as project:
        index = ProjectIndex.load(project, model, _device(args))
        if args.queries:
            texts = _read_queries(args.queries)
            asked = [text for text in texts if text]
            found = iter(
                index.search(index.text_vectors(asked), args.k, **filters) if asked else []
            )
            for text in texts:  # one output line per input line; a blank line gives []
                hits = next(found) if text else []
                print(json.dumps([{"id": h.id, "score": round(h.score, 6)} for h in hits]))
            return 0
        vector = query_vector(index, args.text, args.image)
        hits = index.search(vector, args.k, **filters)[0]
    if args.json:
        print(json.dumps([{"id": h.id, "score": round(h.score, 6)} for h in hits]))
    else:
        for rank, hit in enumerate(hits, start=1):
            print(f"{rank:>3}  {hit.score:.4f}  {hit.id}")
    return 0


def _read_queries(path: Path) -> list[str]:
    try:
        return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    except OSError as error:
        raise StudioError(f"Cannot read {path}: {error.strerror or error}") from error
