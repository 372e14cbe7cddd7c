"""``cir-studio train combiner`` and ``cir-studio train list``: composition models."""

from __future__ import annotations

import argparse
import json
import sys

from studio.cli.progress import TerminalProgress
from studio.cli.project_arg import add_project_argument, open_project


def register(subparsers: argparse._SubParsersAction) -> None:
    train = subparsers.add_parser(
        "train", help="train a composition model (Combiner) on the project's triplets"
    )
    actions = train.add_subparsers(dest="train_command", metavar="ACTION", required=True)
    combiner = actions.add_parser(
        "combiner",
        help="train a Combiner on the project's captions and accepted turns",
        description="Train a CLIP4Cir-style Combiner over the embedding model's frozen "
        "features: every submitted or accepted caption of a train-split pair is one triplet, "
        "so is every accepted transaction turn; --drafted adds triplets drafted from images. "
        "Early stopping on the val split's pairs. Use it afterwards as the strategy "
        "combiner:NAME.",
    )
    add_project_argument(combiner)
    combiner.add_argument("--name", default="combiner", help="the combiner's name (combiner)")
    combiner.add_argument(
        "--model", dest="train_model", help="embedding model (default: the one in Settings)"
    )
    combiner.add_argument("--epochs", type=int, default=40, help="most epochs (40)")
    combiner.add_argument("--seed", type=int, default=0, help="random seed (0)")
    combiner.add_argument("--device", dest="train_device", help="cpu (default), cuda, mps or auto")
    combiner.add_argument(
        "--drafted",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of the training set drafted from images alone, 0-1 (0)",
    )
    combiner.add_argument("--json", action="store_true", help="print the summary as JSON")
    combiner.set_defaults(func=run_train)
    listing = actions.add_parser("list", help="list the project's trained combiners")
    add_project_argument(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=run_list)


def run_train(args: argparse.Namespace) -> int:
    from studio.settings import Settings
    from studio.training.combiner import TrainingRequest, train_project_combiner

    settings = Settings.load()
    request = TrainingRequest(
        name=args.name,
        model=args.train_model or args.model or settings.model,
        epochs=args.epochs,
        seed=args.seed,
        device=args.train_device or args.device or "cpu",
        drafted=args.drafted,
    )

    def epoch_line(row) -> None:
        if args.json:
            return
        recall = "" if row.val_recall_at_10 is None else f"val R@10 {row.val_recall_at_10:.3f}"
        loss = "untrained (= image + text sum)" if row.loss is None else f"loss {row.loss:.4f}"
        mark = "  *" if row.best else ""
        print(f"\repoch {row.epoch:>3}  {loss}  {recall}{mark}".ljust(80), file=sys.stderr)

    with open_project(args) as project, TerminalProgress(f"Training {args.name}") as bar:
        summary = train_project_combiner(project, request, progress=bar, on_epoch=epoch_line)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    counts = summary["train_triplets"]
    print(
        f"Combiner '{summary['name']}' for model {summary['embedding_model']}: "
        f"{sum(counts.values())} training triplets ({counts['caption']} captions, "
        f"{counts['turn']} turns, {counts['drafted']} drafted), {summary['val_triplets']} "
        f"for validation ({summary['val_source']})."
    )
    best, base = summary["best_val_recall_at_10"], summary["sum_val_recall_at_10"]
    if best is not None:
        print(
            f"Best epoch {summary['best_epoch']} of {summary['epochs_run']}: val R@10 "
            f"{best:.3f} (image + text sum: {base:.3f}); {summary['seconds']:.1f} s of "
            "training."
        )
    print(f"Saved to {summary['path']}; use it as --strategy combiner:{summary['name']}.")
    if summary.get("warning"):
        print(f"Warning: {summary['warning']}", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from studio.training.combiner import list_combiners

    with open_project(args) as project:
        configs = list_combiners(project)
    if args.json:
        print(json.dumps([{**c.to_json(), "path": str(path)} for path, c in configs]))
        return 0
    if not configs:
        print("No trained combiners yet; run 'cir-studio train combiner --project P'.")
        return 0
    print("name                 model      triplets  epochs  val R@10 (sum)   trained")
    for _, config in configs:
        t = config.training
        triplets = sum(t.get("train_triplets", {}).values())
        best, base = t.get("best_val_recall_at_10"), t.get("sum_val_recall_at_10")
        recall = "-" if best is None else f"{best:.3f} ({base:.3f})"
        epochs = f"{t.get('best_epoch', '?')}/{t.get('epochs_run', '?')}"
        print(
            f"{config.name:<20} {config.embedding_model:<10} {triplets:>8}  {epochs:>6}  "
            f"{recall:<15}  {str(t.get('created_at', ''))[:16]}"
        )
    return 0
