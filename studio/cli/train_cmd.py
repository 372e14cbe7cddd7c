"""``cir-studio train combiner|captioner`` and ``cir-studio train list``: trained models."""

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
    combiner.add_argument("--drafts-per-image", type=int, default=1, metavar="K",
                          help="drafted triplets per train image, each with another similar "
                          "reference (1)")
    combiner.add_argument("--voice", choices=("learned", "catalog"), default="learned",
                          help="how drafts are worded: learned (the shipped captioner, "
                          "annotators' own words) or catalog (fixed phrases) (learned)")
    combiner.add_argument(
        "--alpha", type=float, metavar="A",
        help="serve the query A of the way from the image + text sum to the network, 0-1 "
        "(default: 1 without drafts; with drafts, chosen on the val-split captions, or 0.5 "
        "where there are none)")
    combiner.add_argument("--json", action="store_true", help="print the summary as JSON")
    combiner.set_defaults(func=run_train)
    captioner = actions.add_parser(
        "captioner",
        help="learn a relative captioner from the project's human captions",
        description="Learn how the project's annotators word relative captions (templates "
        "from their own captions, checked by the caption reader), holding out one pair in "
        "ten to measure BLEU-4, ROUGE-L, CIDEr-D and faithfulness. Use it with 'simulate "
        "--users learned --captioner NAME'.",
    )
    add_project_argument(captioner)
    captioner.add_argument("--name", default="captioner", help="the captioner's name (captioner)")
    captioner.add_argument("--min-captions", type=int, default=200,
                           help="refuse to learn from fewer captions than this (200)")
    captioner.add_argument(
        "--model", dest="salience_model",
        help="embedding model whose index shows which differences people see and name "
        "(default: the one in Settings; without an index for it, none is learned)")
    captioner.add_argument("--json", action="store_true", help="print the summary as JSON")
    captioner.set_defaults(func=run_train_captioner)
    listing = actions.add_parser("list", help="list the project's trained combiners and captioners")
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
        drafts_per_image=args.drafts_per_image,
        voice=args.voice,
        alpha=args.alpha,
    )

    def epoch_line(row) -> None:
        if args.json:
            return
        recall = "" if row.val_recall_at_10 is None else f"val R@10 {row.val_recall_at_10:.3f}"
        loss = "untrained (= image + text sum)" if row.loss is None else f"loss {row.loss:.4f}"
        mark = "  *" if row.best else ""
        print(f"\repoch {row.epoch:>3}  {loss}  {recall}{mark}".ljust(80), file=sys.stderr)

    with open_project(args) as project, TerminalProgress(f"Training {args.name}") as bar:
        summary = train_project_combiner(project, request, progress=bar, on_epoch=epoch_line,
                                         actor=settings.user_name or "cli")
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
    if summary["alpha"] < 1.0 or summary["train_triplets"]["drafted"]:
        print(
            f"Served {summary['alpha']:.0%} of the way from the image + text sum to the "
            f"network (alpha {summary['alpha']:.1f}, {summary['alpha_source']}; --alpha "
            "sets it)."
        )
    print(f"Saved to {summary['path']}; use it as --strategy combiner:{summary['name']}.")
    if summary.get("warning"):
        print(f"Warning: {summary['warning']}", file=sys.stderr)
    return 0


def run_train_captioner(args: argparse.Namespace) -> int:
    from studio.training.captioner import train_project_captioner

    with open_project(args) as project, TerminalProgress(f"Training {args.name}") as bar:
        summary = train_project_captioner(
            project, args.name, progress=bar, min_captions=args.min_captions,
            model_name=args.salience_model or getattr(args, "model", None) or None)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    held = summary["held_out"]
    print(
        f"Captioner '{summary['name']}': {summary['templates']} templates from "
        f"{summary['train_captions']} captions of {summary['train_pairs']} pairs in "
        f"{summary['seconds']:.1f} s."
    )
    if held["captions"]:
        print(
            f"Held-out ({held['captions']} captions of {summary['held_out_pairs']} pairs): "
            f"BLEU-4 {held['bleu4']:.3f}, ROUGE-L {held['rouge_l']:.3f}, CIDEr-D "
            f"{held['cider_d']:.3f}; the reader reads back precision {held['precision']:.3f}, "
            f"recall {held['recall']:.3f} of what it was asked."
        )
    print(_salience_line(summary.get("salience") or {}))
    print(f"Saved to {summary['path']}; use it with --users learned --captioner {args.name}.")
    return 0


def _salience_line(report: dict) -> str:
    """What the image features taught the captioner, or why they taught it nothing."""
    if not report.get("used"):
        return (f"No image features used: {report.get('reason', 'not asked')}; simulated "
                "people choose differences by how often they were named.")
    line = (f"Image features ({report['model']}): which differences people name, from "
            f"{report['examples']} examples")
    auc, base = report.get("held_out_auc"), report.get("base_rate_auc")
    if auc is not None and base is not None:
        line += (f"; held-out ROC AUC {auc:.3f} ({report['held_out_examples']} examples; "
                 f"the facet's base rate alone: {base:.3f})")
    return line + "."


def _salience_mark(summary: dict) -> str:
    report = summary.get("salience") or {}
    if not report.get("used"):
        return ""
    auc = report.get("held_out_auc")
    return f"  sees pictures ({report['model']}" + (
        f", held-out AUC {auc:.3f})" if auc is not None else ")")


def run_list(args: argparse.Namespace) -> int:
    from studio.training.captioner import list_captioners
    from studio.training.combiner import list_combiners

    with open_project(args) as project:
        configs = list_combiners(project)
        captioners = list_captioners(project)
    if args.json:
        print(json.dumps([{**c.to_json(), "kind": "combiner", "path": str(path)}
                          for path, c in configs]
                         + [{**c, "kind": "captioner"} for c in captioners]))
        return 0
    for summary in captioners:
        held = summary.get("held_out", {})
        print(
            f"captioner {summary['name']:<20} {summary['templates']:>6} templates  "
            f"{summary['train_captions']:>6} captions  BLEU-4 {held.get('bleu4', 0):.3f}  "
            f"{str(summary.get('created_at', ''))[:16]}{_salience_mark(summary)}"
        )
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
