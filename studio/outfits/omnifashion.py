"""``export omnifashion``: the outfits as dialogue samples for OmniFashion's task families.

One JSON line per sample in the common chat format (LLaVA/ShareGPT style)::

    {"id": "...", "task": "...", "images": ["rel/path.jpg", ...],
     "conversations": [{"from": "human", "value": "<image>\\n..."},
                       {"from": "gpt", "value": "..."}]}

Image paths are as stored in the project (relative to its image root). Only what holds
is used (accepted regions, effective labels). Negatives for yes/no questions are other
values of the same field or supercategory that a picture does not have. Everything that
varies (template, negative, the pictures of a multi-image question) is drawn from one
``random.Random(seed)``, walking the outfits in their stored order, so a seed gives the
same file.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.outfits.ontology import Ontology, load_ontology
from studio.outfits.records import Outfit, Region, effective
from studio.outfits.store import load_outfits
from studio.store import Project

TASKS = (
    "style_overall", "style_part", "scene", "occasion_season", "description",
    "attribute_color", "attribute_design", "attribute_material",
    "yes_no_global", "yes_no_local", "retrieval", "comparison",
)
COLOUR = {"color", "colour"}
MATERIAL = {"material", "woven", "knit", "leather", "non-woven", "crochet",
            "non-textile material type"}
TEMPLATES: dict[str, tuple[str, ...]] = {
    "style_overall": ("What is the overall style of this outfit?",
                      "How would you describe the style of this look?",
                      "Which fashion style does this outfit follow?"),
    "style_overall_a": ("The outfit's style is {x}.", "This look is {x}.",
                        "It follows a {x} style."),
    "style_part": ("What are the design details of the {r}?",
                   "Describe the {r} in this picture.",
                   "Look at the {r}. What details stand out?"),
    "style_part_a": ("The {r} {p}.", "It has these details: {x}.",
                     "Details of the {r}: {x}."),
    "scene": ("Where was this photo taken?", "What kind of place is this outfit shown in?",
              "Describe the scene of this picture."),
    "scene_a": ("The scene is {x}.", "It looks like {x}.", "This is shown in a {x} setting."),
    "occasion_season": ("For which occasion and season does this outfit suit?",
                        "When would someone wear this outfit?",
                        "What occasion and season fit this look?"),
    "description": ("Describe this outfit.", "Give a short description of the outfit.",
                    "What is this person wearing?"),
    "attribute_color": ("What colour is the {r}?", "Which colour does the {r} have?",
                        "Name the colour of the {r}."),
    "attribute_design": ("What design features does the {r} have?",
                         "Describe the design of the {r}.",
                         "Which cut, length or pattern does the {r} show?"),
    "attribute_material": ("What material is the {r} made of?",
                           "Which fabric or material is the {r}?",
                           "Describe the material of the {r}."),
    "attribute_a": ("The {r} {p}.", "It {p}.", "{X}."),
    "yes_garment": ("Is there {x} in this outfit?", "Does this person wear {x}?",
                    "Can you see {x} in the picture?"),
    "yes_value": ("Is this outfit {field} {x}?", "Would you call the {field} of this look "
                  "{x}?", "Does this outfit fit the {field} '{x}'?"),
    "yes_part": ("Does the {r} have {x}?", "Is there {x} on the {r}?",
                 "Can you see {x} on the {r}?"),
    "yes_attribute": ("Is the {r} {x}?", "Would you describe the {r} as {x}?",
                      "Is it true that the {r} is {x}?"),
    "retrieval": ("Which picture shows {x}?", "Find the outfit with {x}. Which picture is "
                  "it?", "I am looking for {x}. Which of these pictures has one?"),
    "comparison": ("Compare the outfits in these two pictures.",
                   "What is different between the two outfits?",
                   "How do these two looks differ?"),
}


# Garments English names in the plural only: one is "a pair of pants".
PLURAL_ONLY = {"pants", "shorts", "tights", "stockings", "glasses", "sunglasses", "jeans",
               "leggings", "trousers", "earmuffs", "overalls"}
# Fashionpedia's pattern nouns as the adjective a sentence needs ("It is striped").
PATTERN_ADJECTIVES = {"stripe": "striped", "check": "checked", "dot": "dotted",
                      "plain pattern": "plain", "floral": "floral", "geometric": "geometric",
                      "abstract": "abstract", "camouflage": "camouflage"}
# Finishing attributes that are things a garment has ("It has an appliqué").
HAD_THINGS = {"applique", "bead", "rivet", "sequin", "pleat", "cutout", "slit", "lining",
              "gathering", "smocking"}
_CONSONANT_SOUND = ("uni", "use", "usu", "eu", "one", "once")


def natural(name: str) -> str:
    """Ontology names read in a sentence: the first of 'shirt, blouse', no brackets, and
    no "(a)" (Fashionpedia's mark of the attribute named like a category: 'applique(a)')."""
    first = name.replace("(a)", " ").split(",")[0].strip()
    return " ".join(first.replace("(", " ").replace(")", " ").split())


def a(noun: str) -> str:
    """The noun with its indefinite article: 'an applique', 'a shoe', 'a pair of pants'."""
    if noun.split(" ")[0] in PLURAL_ONLY:
        return f"a pair of {noun}"
    word = noun.lower()
    vowel = word[:1] in "aeiou" and not word.startswith(_CONSONANT_SOUND)
    return f"{'an' if vowel or word.startswith('hour') else 'a'} {noun}"


def plural(name: str) -> bool:
    """A region named 'pants' (or 'pants at [...]') takes a plural verb; 'sleeve of the
    pants' does not."""
    return name.split(" ")[0] in PLURAL_ONLY


def agree(phrase: str, many: bool) -> str:
    """'is striped and has an applique' for one, 'are striped and have …' for several."""
    if not many:
        return phrase
    words = phrase.split(" ")
    swap = {"is": "are", "has": "have"}
    return " ".join(swap.get(w, w) if i == 0 or words[i - 1] == "and" else w
                    for i, w in enumerate(words))


# A template's words about its region ``{r}`` when that region is plural ('the pants').
PLURAL_TEMPLATE = (("is the {r}", "are the {r}"), ("Is the {r}", "Are the {r}"),
                   ("does the {r}", "do the {r}"), ("Does the {r}", "Do the {r}"),
                   ("the {r} is", "the {r} are"), ("The {r} is", "The {r} are"),
                   ("The {r} shows", "The {r} show"), ("It {p}", "They {p}"),
                   ("It has", "They have"))


def predicate(supercategory: str, word: str) -> str:
    """An attribute as what follows its region: 'is striped', 'has an applique',
    'is in a paisley pattern', 'is wrist-length'."""
    if word in HAD_THINGS:
        return f"has {a(word)}"
    if supercategory == "textile pattern":
        if word in PATTERN_ADJECTIVES:
            return f"is {PATTERN_ADJECTIVES[word]}"
        return f"is in {a(word if word.endswith(' pattern') else word + ' pattern')}"
    return f"is {word}"


def predicates(found: Sequence[tuple[str, str]]) -> str:
    """Several attributes of one region: 'is striped and tight and has an applique'."""
    phrases = [predicate(s, w) for s, w in found]
    being = [p.removeprefix("is ") for p in phrases if p.startswith("is ")]
    having = [p.removeprefix("has ") for p in phrases if p.startswith("has ")]
    said = ([f"is {join(being)}"] if being else []) + ([f"has {join(having)}"] if having else [])
    return " and ".join(said)


def bare(supercategory: str, word: str) -> str:
    """An attribute named on its own: 'striped', 'an applique', 'wrist-length'."""
    phrase = predicate(supercategory, word)
    return phrase.removeprefix("is ").removeprefix("has ")


def join(words: Sequence[str]) -> str:
    words = list(dict.fromkeys(words))
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def family(supercategory: str) -> str:
    if supercategory in COLOUR:
        return "color"
    if supercategory in MATERIAL:
        return "material"
    return "design"


class _Writer:
    def __init__(self, project: Project, ontology: Ontology, rng: random.Random) -> None:
        self.project = project
        self.ontology = ontology
        self.rng = rng
        self.samples: list[dict[str, Any]] = []
        self.counts: Counter[str] = Counter()
        self.paths: dict[str, str] = {}

    def path(self, image_id: str) -> str:
        if image_id not in self.paths:
            image = self.project.image(image_id)
            self.paths[image_id] = image.path if image else image_id
        return self.paths[image_id]

    def pick(self, key: str, **values: str) -> str:
        text = self.rng.choice(TEMPLATES[key])
        if key == "yes_attribute" and values["x"].startswith("has "):  # "Does it have …?"
            text = self.rng.choice(TEMPLATES["yes_part"])
        if key == "yes_attribute":
            values["x"] = values["x"].removeprefix("is ").removeprefix("has ")
        if plural(values.get("r", "")):
            for one, several in PLURAL_TEMPLATE:
                text = text.replace(one, several)
            if "p" in values:
                values["p"] = agree(values["p"], True)
        if "x" in values:
            values["X"] = values["x"][:1].upper() + values["x"][1:]
        return text.format(**values)

    def add(self, task: str, images: list[str], question: str, answer: str) -> None:
        marks = "<image>\n" if len(images) == 1 else "".join(
            f"Picture {n}: <image>\n" for n in range(1, len(images) + 1)
        )
        self.counts[task] += 1
        self.samples.append({
            "id": f"{task}-{self.counts[task]:06d}",
            "task": task,
            "images": [self.path(i) for i in images],
            "conversations": [
                {"from": "human", "value": marks + question},
                {"from": "gpt", "value": answer},
            ],
        })

    # -- helpers -----------------------------------------------------------------------

    def name_of(self, outfit: Outfit, region: Region, held: list[Region]) -> str:
        """'sleeve of the dress', with a box when the name alone is ambiguous."""
        name = natural(self.ontology.by_id[region.category_id].name)
        if region.role == "part" and region.garment_id is not None:
            garment = next((r for r in held if r.id == region.garment_id), None)
            if garment is not None:
                name += f" of the {natural(self.ontology.by_id[garment.category_id].name)}"
        same = [r for r in held if r.category_id == region.category_id
                and r.garment_id == region.garment_id]
        bounds = region.bounds()
        if len(same) > 1 and bounds is not None:
            x, y, w, h = (round(v) for v in bounds)
            name += f" at [{x}, {y}, {x + w}, {y + h}]"
        return name

    def values(self, outfit: Outfit, field_name: str) -> list[str]:
        return [
            self.ontology.by_id[label.value_id].name for label in effective(outfit.outfit_labels)
            if self.ontology.by_id[label.value_id].supercategory == field_name
        ]

    def attributes(self, outfit: Outfit, region: Region) -> list[tuple[str, str, int]]:
        out = []
        for label in effective(outfit.region_labels.get(region.id, [])):
            entry = self.ontology.by_id[label.value_id]
            if entry.kind == "attribute":
                out.append((entry.supercategory, natural(entry.name), entry.id))
        return out

    # -- one picture -------------------------------------------------------------------

    def picture(self, outfit: Outfit) -> None:
        image = [outfit.picture.image_id]
        held = [r for r in outfit.regions if r.status == "accepted"]
        styles = self.values(outfit, "style")
        if styles:
            self.add("style_overall", image, self.pick("style_overall"),
                     self.pick("style_overall_a", x=join(styles)))
        scenes = self.values(outfit, "scene")
        if scenes:
            self.add("scene", image, self.pick("scene"), self.pick("scene_a", x=join(scenes)))
        occasions, seasons = self.values(outfit, "occasion"), self.values(outfit, "season")
        if occasions or seasons:
            parts = []
            if occasions:
                parts.append(f"It suits {join(occasions)}")
            if seasons:
                parts.append(f"it is meant for {join(seasons)}" if parts
                             else f"It is meant for {join(seasons)}")
            self.add("occasion_season", image, self.pick("occasion_season"),
                     " and ".join(parts) + ".")
        if outfit.picture.general or outfit.picture.concise:
            self.add("description", image, self.pick("description"),
                     outfit.picture.general or outfit.picture.concise)
        for region in held:
            name = self.name_of(outfit, region, held)
            found = self.attributes(outfit, region)
            design = [(s, n) for s, n, _ in found if family(s) == "design"]
            if region.role == "part" and design:
                self.add("style_part", image, self.pick("style_part", r=name),
                         self.pick("style_part_a", r=name, p=predicates(design),
                                   x=join([bare(s, n) for s, n in design])))
            for kind in ("color", "design", "material"):
                words = [(s, n) for s, n, _ in found if family(s) == kind]
                if words and not (kind == "design" and region.role == "part"):
                    self.add(f"attribute_{kind}", image, self.pick(f"attribute_{kind}", r=name),
                             self.pick("attribute_a", r=name, p=predicates(words),
                                       x=join([bare(s, n) for s, n in words])))
        self.yes_no(outfit, image, held)

    def yes_no(self, outfit: Outfit, image: list[str], held: list[Region]) -> None:
        present = {r.category_id for r in held if r.role == "garment"}
        garments = [e for e in self.ontology.of_kind("category")
                    if not e.is_part and e.id not in present]
        if present:
            entry = self.ontology.by_id[self.rng.choice(sorted(present))]
            self.add("yes_no_global", image, self.pick("yes_garment", x=a(natural(entry.name))),
                     f"Yes, there is {a(natural(entry.name))}.")
        if garments and present:
            entry = self.rng.choice(garments)
            self.add("yes_no_global", image, self.pick("yes_garment", x=a(natural(entry.name))),
                     f"No, there is no {natural(entry.name)}.")
        for field_name in ("style", "occasion", "season", "scene"):
            have = self.values(outfit, field_name)
            if not have:
                continue
            others = [e.name for e in self.ontology.outfit_values(field_name)
                      if e.name not in have]
            if others:
                value = self.rng.choice([*have, self.rng.choice(others)])
                answer = "Yes." if value in have else f"No, it is {join(have)}."
                self.add("yes_no_global", image,
                         self.pick("yes_value", field=field_name, x=value), answer)
        for region in held:
            name = self.name_of(outfit, region, held)
            if region.role == "garment":
                parts = {p.category_id for p in held if p.garment_id == region.id}
                if parts:
                    entry = self.ontology.by_id[self.rng.choice(sorted(parts))]
                    self.add("yes_no_local", image,
                             self.pick("yes_part", r=name, x=a(natural(entry.name))),
                             f"Yes, the {name} {agree('has', plural(name))} "
                             f"{a(natural(entry.name))}.")
                    absent = [e for e in self.ontology.of_kind("category")
                              if e.is_part and e.id not in parts]
                    if absent:
                        missing = natural(self.rng.choice(absent).name)
                        self.add("yes_no_local", image,
                                 self.pick("yes_part", r=name, x=a(missing)),
                                 f"No, the {name} {agree('has', plural(name))} no {missing}.")
            found = self.attributes(outfit, region)
            if not found:
                continue
            supercategory, word, _ = self.rng.choice(found)
            own = {a for _, _, a in found}
            # A nickname names a kind of garment: another one is no sensible "no".
            candidates = [e for e in self.ontology.of_kind("attribute")
                          if e.supercategory == supercategory and e.id not in own
                          and supercategory != "nickname"]
            if candidates and self.rng.random() < 0.5:
                other = natural(self.rng.choice(candidates).name)
                self.add("yes_no_local", image,
                         self.pick("yes_attribute", r=name, x=predicate(supercategory, other)),
                         f"No, the {name} {agree(predicate(supercategory, word), plural(name))}, not "
                         f"{bare(supercategory, other)}.")
            else:
                self.add("yes_no_local", image,
                         self.pick("yes_attribute", r=name, x=predicate(supercategory, word)),
                         "Yes.")

    # -- several pictures --------------------------------------------------------------

    def garment_words(self, outfit: Outfit) -> set[str]:
        """'a shirt', 'a pair of pants': each garment the picture shows."""
        return {a(natural(self.ontology.by_id[r.category_id].name)) for r in outfit.regions
                if r.status == "accepted" and r.role == "garment"}

    def described(self, outfit: Outfit) -> set[str]:
        """'a shirt that is striped' style phrases: a garment and one of its attributes."""
        out = set()
        for region in outfit.regions:
            if region.status != "accepted" or region.role != "garment":
                continue
            garment = natural(self.ontology.by_id[region.category_id].name)
            verb = "are" if garment.split(" ")[0] in PLURAL_ONLY else "is"
            for supercategory, word, _ in self.attributes(outfit, region):
                said = predicate(supercategory, word)
                if verb == "are":
                    said = "are " + said[3:] if said.startswith("is ") else "have " + said[4:]
                    out.add(f"{garment} that {said}")
                else:
                    out.add(f"{a(garment)} that {said}")
        return out

    def several(self, outfits: list[Outfit], rounds: int) -> None:
        usable = [o for o in outfits if self.garment_words(o)]
        if len(usable) < 2:
            return
        for _ in range(rounds):
            group = self.rng.sample(usable, min(len(usable), self.rng.choice((2, 3, 4))))
            phrases = [self.described(o) | self.garment_words(o) for o in group]
            unique = [
                (index, phrase) for index, own in enumerate(phrases) for phrase in sorted(own)
                if all(phrase not in other for k, other in enumerate(phrases) if k != index)
            ]
            images = [o.picture.image_id for o in group]
            if unique:
                index, phrase = self.rng.choice(unique)
                self.add("retrieval", images, self.pick("retrieval", x=phrase),
                         f"Picture {index + 1}.")
            first, second = group[0], group[1]
            mine, theirs = self.garment_words(first), self.garment_words(second)
            sentences = []
            if mine & theirs:
                sentences.append(f"Both outfits include {join(sorted(mine & theirs))}.")
            if mine - theirs:
                sentences.append(f"Only the first has {join(sorted(mine - theirs))}.")
            if theirs - mine:
                sentences.append(f"Only the second has {join(sorted(theirs - mine))}.")
            sa, sb = self.values(first, "style"), self.values(second, "style")
            if sa and sb and sa != sb:
                sentences.append(f"The first looks {join(sa)}, the second {join(sb)}.")
            self.add("comparison", images[:2], self.pick("comparison"), " ".join(sentences))


def export_omnifashion(project: Project, out: Path, *, seed: int = 0,
                       progress: ProgressCallback = no_progress,
                       cancel: CancelToken | None = None) -> dict[str, Any]:
    """Write the samples; returns the count per task (every family, zeros included)."""
    rng = random.Random(seed)
    writer = _Writer(project, load_ontology(project), rng)
    outfits = load_outfits(project)
    for done, outfit in enumerate(outfits, start=1):
        if cancel is not None:
            cancel.raise_if_cancelled()
        writer.picture(outfit)
        progress(done, len(outfits), "pictures")
    writer.several(outfits, rounds=max(1, len(outfits) // 2))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for sample in writer.samples:
            handle.write(json.dumps(sample, ensure_ascii=False) + "\n")
    return {
        "out": str(out),
        "samples": len(writer.samples),
        "pictures": len(outfits),
        "tasks": {task: writer.counts[task] for task in TASKS},
    }
