"""Simulated-user results on the demo catalog (the issue's results table).

    python bench/bench_simulation.py [--images 2000] [--n 200] [--turns 5] [--project DIR]
                                     [--users learned|realistic|catalog]

Image+text sum (the last-turn-only baseline) against the history-aware default on
ordinary (attribute-difference) and retrospective dialogs: R@10, R@50 and percentile at
turns 1, 3 and 5; and chat mode's cumulative Hits@10 per round with the information-gain
questioner against a random-attribute questioner. Every method runs on the same seeded
dialogs. The users speak as the learned captioner does by default (annotators' own words;
``studio.language.captioner``); ``--users realistic`` runs the hand-written realistic
templates (``studio.language.phrasing``) and ``--users catalog`` the original template
users. Writes the ``simulation`` section of BENCHMARKS.md (``simulation_realistic`` and
``simulation_catalog`` for the others).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.demo_project import prepared_demo  # noqa: E402
from bench.report import markdown_table, write_section  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--project", type=Path)
    parser.add_argument("--users", choices=("learned", "realistic", "catalog"), default="learned")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    from studio.sessions.setup import load_session_context
    from studio.simulation.runner import RunConfig, run_simulation
    from studio.store import Project

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.project or Path(tmp) / "demo"
        prepared_demo(folder, args.images, args.seed)
        with Project.open(folder) as project:
            context = load_session_context(project, "demo", "cpu")
            composed = {}
            for simulator in ("attribute", "retrospective"):
                for strategy in ("sum", "history"):
                    config = RunConfig(
                        strategy=strategy,
                        simulator=simulator,
                        n=args.n,
                        turns=args.turns,
                        seed=args.seed,
                        users=args.users,
                    )
                    composed[(simulator, strategy)] = run_simulation(context, config)
                    print(config.label, "done", flush=True)
            chat = {}
            for questioner in ("infogain", "random"):
                config = RunConfig(
                    simulator="chat",
                    questioner=questioner,
                    n=args.n,
                    turns=args.turns,
                    seed=args.seed,
                    users=args.users,
                )
                chat[questioner] = run_simulation(context, config)
                print(config.label, "done", flush=True)
    turns = [t for t in (1, 3, 5) if t <= args.turns]
    rows = []
    samples = []
    for (simulator, strategy), result in composed.items():
        if strategy == "history":
            samples += [" / ".join(t for t in texts if t) for texts in result.texts[:3]]
            samples = list(dict.fromkeys(samples))
        per_turn = result.per_turn()
        for t in turns:
            row = per_turn[t - 1]
            p = row["percentile"]
            rows.append(
                [
                    simulator,
                    "image+text sum" if strategy == "sum" else "history-aware",
                    t,
                    f"{row['recall_at']['10']:.3f} [{row['recall_ci']['10'][0]:.3f}, "
                    f"{row['recall_ci']['10'][1]:.3f}]",
                    f"{row['recall_at']['50']:.3f}",
                    f"{p['value']:.3f} [{p['low']:.3f}, {p['high']:.3f}]",
                ]
            )
    chat_rows = []
    for questioner, result in chat.items():
        hits = [row["hits_at_10"] for row in result.per_turn()]
        chat_rows.append(
            [
                "information gain" if questioner == "infogain" else "random facet",
                *(f"{h['value']:.3f}" for h in hits),
            ]
        )
    gains = []
    for t in turns:
        ours = composed[("retrospective", "history")].per_turn()[t - 1]["recall_at"]["10"]
        base = composed[("retrospective", "sum")].per_turn()[t - 1]["recall_at"]["10"]
        gains.append(f"turn {t}: {ours - base:+.3f}")
    body = (
        f"Demo catalog of {args.images} images (seed {args.seed}), model `demo`, "
        f"{args.n} dialogs of {args.turns} turns, targets from the test split, each "
        "dialog's gallery is the target's category (start image excluded); 95% intervals "
        "in brackets. Attributes come from the product text (`attributes extract`). "
        + (
            "Users: **learned** (`--users learned`, the default): what to say chosen as "
            "Fashion IQ's annotators chose (requests per caption, facets, comparatives and "
            "negations as often as they used them), said by the captioner learned from "
            "their captions, a wrong value in 3 % of the requests. Sample dialogs: "
            + "; ".join(f"“{t}”" for t in samples[:4])
            if args.users == "learned"
            else "Users: **realistic** (`--users realistic`): 60 % comparatives "
            "where the catalog's scales allow (length, sleeve, fit, colour lightness), 25 % "
            "negations of what the reference has, 1-3 facets a turn, paraphrases and "
            "out-of-vocabulary words, style words that carry nothing (15 %), and a typo in "
            "3 % of the words of four letters or more, and a wrong value in 3 % of the phrases "
            "(Fashion IQ's two annotators contradict each other on about 3.5 % of pairs, "
            "see the caption flags). Sample dialogs: "
            + "; ".join(f"“{t}”" for t in samples[:4])
            if args.users == "realistic"
            else "Users: **catalog** (`--users catalog`): the catalog's own words in fixed "
            "templates, 30 % comparatives."
        )
        + "\n\n"
        + markdown_table(["dialogs", "strategy", "turn", "R@10", "R@50", "percentile"], rows)
        + "\n\nHistory-aware minus the last-turn-only baseline (image+text sum) on "
        "retrospective dialogs, R@10: "
        + ", ".join(gains)
        + ".\n\n"
        + "Chat mode, cumulative Hits@10 per round (round 0 = the opening description):\n\n"
        + markdown_table(["questioner", *(f"round {r}" for r in range(args.turns + 1))], chat_rows)
        + f"\n\nRun: `.venv/bin/python bench/bench_simulation.py --images {args.images} "
        f"--n {args.n} --users {args.users}`."
    )
    print(body)
    if not args.no_write:
        if args.users == "learned":
            write_section("simulation", "Simulated users on the demo catalog", body)
        elif args.users == "realistic":
            write_section("simulation_realistic", "Realistic-template simulated users", body)
        else:
            write_section("simulation_catalog", "Catalog-worded simulated users", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
