"""The one key map: every keyboard action of the window, its keys and where it applies.

After napari's action manager (``napari/utils/action_manager.py``): an action has an id,
a description, its default keys and the context where it applies, and widgets bind to it
by id instead of naming keys where each happens to be. Here the map is one table
(``_declare`` below) that a person can read top to bottom; Help → Keyboard Shortcuts
shows it, grouped by pane, and ``shortcuts_markdown()`` writes it for the manual.

What happens when an annotator presses Ctrl+Enter in the Captions pane: the table says
``captions.writing.save`` (Ctrl+Return / Ctrl+Enter, "Save the caption and go to the
next pair"); ``widgets/caption_form.py`` binds it for the writer
(``widgets/caption_writer.py``), which calls ``submit`` on its work queue off the UI
thread (``widgets/queue_calls.py``): ``studio/work_queue/local.py`` submits through
``studio/captions`` into the project's store (``studio/store/repos/captions.py``), and
``studio/work_queue/remote.py`` through the team client's outbox to the server, which
runs the same ``studio/captions`` rules on its store.

Contexts are focus scopes nested as the widgets are: a key of a context works while the
focus is inside its widget. Two actions can fire on one key press only when one's
context holds the other's (or they share one), so that is where two actions must not
share a key (``clashes``; tests/gui/test_keyboard_shortcuts.py keeps the list empty).

Actions are bound three ways, said by ``bound_by``:

- ``shortcut``: a ``QShortcut`` or a menu's ``QAction`` made here (``bind``,
  ``menu_action``), live while the focus is in the context's widget;
- ``widget``: a plain key (a letter, a digit, Enter) that the focused widget handles
  itself through a ``KeyMap``, so that typing the letter in a text field nearby still
  types it;
- ``qt``: Qt's own binding (select all in a list), listed so the table is complete.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu, QWidget

BoundBy = Literal["shortcut", "widget", "qt"]


@dataclass(frozen=True)
class Context:
    """A focus scope: ``parent`` is the scope it lies in (None: a window of its own)."""

    name: str
    title: str  # "Captions — writing", as the help table shows it
    pane: str  # the group in the help table
    parent: str | None


@dataclass(frozen=True)
class Action:
    id: str
    description: str
    keys: tuple[str, ...]  # Qt's portable text ("Ctrl+Return"); the first is the one shown
    context: str
    bound_by: BoundBy = "shortcut"

    def __post_init__(self) -> None:
        if self.bound_by not in ("shortcut", "widget", "qt"):
            raise ValueError(f"bound_by must be shortcut, widget or qt, not {self.bound_by!r}")
        if not self.keys:
            raise ValueError(f"action {self.id!r} has no keys")

    @property
    def shown(self) -> str:
        """Its first key as people write it: "Ctrl+Enter", "Alt+←"."""
        return key_label(self.keys[0])

    @property
    def shown_all(self) -> str:
        """Every key, as people write them; Return and keypad Enter are one "Enter"."""
        return " / ".join(dict.fromkeys(key_label(key) for key in self.keys))


CONTEXTS: dict[str, Context] = {}
ACTIONS: dict[str, Action] = {}

_LABELS = {"Return": "Enter", "Enter": "Enter", "Left": "←", "Right": "→",
           "Up": "↑", "Down": "↓", "PgDown": "PgDn", "Esc": "Esc"}


def key_label(key: str) -> str:
    """"Ctrl+Return" → "Ctrl+Enter", "Alt+Left" → "Alt+←": the key as the manual writes it."""
    parts = key.split("+")
    if key.endswith("++"):  # Ctrl++: the last part is "+"
        parts = [*key[:-2].split("+"), "+"]
    return "+".join([*parts[:-1], _LABELS.get(parts[-1], parts[-1])])


def context(name: str, title: str, pane: str, parent: str | None = "window") -> None:
    CONTEXTS[name] = Context(name, title, pane, parent)


def register(
    action_id: str, keys: Iterable[str], description: str, where: str,
    bound_by: BoundBy = "shortcut",
) -> Action:
    if where not in CONTEXTS:
        raise ValueError(f"Unknown context {where!r} for {action_id!r}; the contexts are "
                         f"{', '.join(CONTEXTS)}")
    if action_id in ACTIONS:
        raise ValueError(f"action {action_id!r} is declared twice")
    action = Action(action_id, description, tuple(keys), where, bound_by)
    for key in action.keys:
        if QKeySequence(key).isEmpty() or QKeySequence(key).count() != 1:
            raise ValueError(f"{action_id}: {key!r} is not one key combination")
    ACTIONS[action_id] = action
    return action


def action(action_id: str) -> Action:
    try:
        return ACTIONS[action_id]
    except KeyError:
        raise KeyError(f"Unknown action {action_id!r}. The registered actions are "
                       f"{', '.join(sorted(ACTIONS))}") from None


# -- the map ------------------------------------------------------------------------------


def _declare() -> None:
    """The map: contexts, then each pane's actions in the order the manual lists them."""
    context("window", "Everywhere in the window", "Window", parent=None)
    context("pairs", "Pairs pane", "Pairs")
    context("captions", "Captions pane", "Captions")
    context("captions.writing", "Captions — writing (local and team)", "Captions", "captions")
    context("captions.review", "Captions — reviewing (local and team)", "Captions", "captions")
    context("attributes", "Attributes pane", "Attributes")
    context("attributes.image", "Attributes — one image, many attributes", "Attributes",
            "attributes")
    context("attributes.bulk", "Attributes — one attribute, many images", "Attributes",
            "attributes")
    context("attributes.team", "Attributes — undecided, image by image (local and team)",
            "Attributes", "attributes")
    context("attributes.outfit", "Attributes — outfits", "Attributes", "attributes")
    context("attributes.outfit.canvas", "Attributes — outfits, the picture", "Attributes",
            "attributes.outfit")
    context("retrieval", "Retrieval pane", "Retrieval")
    context("quality", "Quality pane", "Quality")
    context("quality.rating", "Quality — rating turns", "Quality", "quality")
    context("quality.draft", "Quality — drafting a transaction (its own dialog)", "Quality",
            parent=None)

    w = "window"
    register("window.new_project", ["Ctrl+N"], "Create a new project", w)
    register("window.open_project", ["Ctrl+O"], "Open a project", w)
    register("window.open_demo", ["Ctrl+Shift+D"], "Open the demo project (drawn on first use)",
             w)
    register("window.settings", ["Ctrl+,"], "Settings: your name, device, model", w)
    register("window.quit", ["Ctrl+Q"], "Quit (what was typed is saved first)", w)
    register("window.merge_work", ["Ctrl+Shift+M"], "File → Team → Merge work…", w)
    register("window.manual", ["F1"], "Help → Manual: the manual shipped with the studio", w)
    for number, title in enumerate(PANES, start=1):
        register(f"window.pane.{number}", [f"Ctrl+{number}"], f"Show the {title} pane", w)

    register("pairs.search", ["Ctrl+L"], "Search pairs by number, image id or title", "pairs")
    for where in ("pairs", "captions"):  # the pair view's zoom, in both panes that show it
        register(f"{where}.zoom_in", ["Ctrl++", "Ctrl+="], "Zoom both pictures in", where)
        register(f"{where}.zoom_out", ["Ctrl+-"], "Zoom both pictures out", where)
        register(f"{where}.zoom_reset", ["Ctrl+0"], "Zoom to fit (100 %)", where)

    register("captions.write_mode", ["Ctrl+Shift+W"], "Switch to writing captions", "captions")
    register("captions.review_mode", ["Ctrl+Shift+R"], "Switch to reviewing captions",
             "captions")
    cw, cr = "captions.writing", "captions.review"
    for where, thing in ((cw, "pair"), (cr, "caption")):
        register(f"{where}.previous", ["Alt+Left", "PgUp"], f"Previous {thing}", where)
        register(f"{where}.next", ["Alt+Right", "PgDown"], f"Next {thing}", where)
    register("captions.writing.save", ["Ctrl+Return", "Ctrl+Enter"],
             "Save the caption and go to the next pair (team: submit it)", cw)
    register("captions.writing.skip", ["Ctrl+K"], "Skip the pair (it leaves your queue)", cw)
    register("captions.writing.flag", ["Ctrl+F"],
             "Flag the pair for a coordinator, with a reason", cw)
    register("captions.writing.undo_save", ["Ctrl+Alt+Z"],
             "Undo the last saved caption (it becomes a draft again)", cw)
    register("captions.writing.undo", ["Ctrl+Z"], "Undo typing, a word or a pause at a time", cw)
    register("captions.writing.redo", ["Ctrl+Shift+Z", "Ctrl+Y"], "Redo typing", cw)
    register("captions.writing.cancel_reason", ["Esc"], "Close the flag reason line", cw)
    register("captions.review.accept", ["Ctrl+Return", "Ctrl+Enter"],
             "Accept the caption (with your edits)", cr)
    register("captions.review.reject", ["Ctrl+R"],
             "Reject the caption: type the reason, then Enter", cr)
    register("captions.review.skip", ["Ctrl+K"], "Skip the caption", cr)
    register("captions.review.undo_decision", ["Ctrl+Alt+Z"],
             "Undo the last accept or reject (the caption is as it was)", cr)
    register("captions.review.cancel_reason", ["Esc"], "Close the reject reason line", cr)

    ai, ab, at = "attributes.image", "attributes.bulk", "attributes.team"
    for where, label in ((ai, "attribute"), (at, "suggestion")):  # the same keys in both
        register(f"{where}.accept", ["A"], f"Accept the highlighted {label}", where, "widget")
        register(f"{where}.reject", ["R"], f"Reject the highlighted {label}", where, "widget")
        register(f"{where}.accept_rest", ["Shift+A"], f"Accept every undecided {label}", where,
                 "widget")
        register(f"{where}.reject_rest", ["Shift+R"], f"Reject every undecided {label}", where,
                 "widget")
        register(f"{where}.next_attribute", ["Down", "Tab"], f"Next {label}", where, "widget")
        register(f"{where}.previous_attribute", ["Up", "Shift+Tab"], f"Previous {label}", where,
                 "widget")
    register("attributes.image.undo", ["U"], "Undo the last decision (even on an earlier image)",
             ai, "widget")
    register("attributes.image.next_image", ["J", "Right"], "Next image", ai, "widget")
    register("attributes.image.previous_image", ["K", "Left"], "Previous image", ai, "widget")
    register("attributes.image.add", ["N", "/", "+"], "Add an attribute by name", ai, "widget")
    register("attributes.image.leave_add", ["Esc"], "Leave the add field, back to the chips", ai,
             "widget")
    register("attributes.bulk.accept", ["A"], "Accept the attribute on the selected images", ab,
             "widget")
    register("attributes.bulk.reject", ["R"], "Reject the attribute on the selected images", ab,
             "widget")
    register("attributes.bulk.undo", ["U"], "Undo: the selected images' labels undecided again",
             ab, "widget")
    register("attributes.bulk.select_all", ["Ctrl+A"], "Select every image", ab, "qt")
    register("attributes.team.send", ["Return", "Enter"],
             "Keep the image's decisions and bring the next image", at, "widget")
    register("attributes.team.skip", ["Ctrl+K"], "Skip the image (it comes back after the others)",
             at)

    ao, ac = "attributes.outfit", "attributes.outfit.canvas"
    register("attributes.outfit.undo", ["Ctrl+Z"], "Undo the last change to the outfit", ao)
    register("attributes.outfit.next_region", ["]"], "Next region", ao, "widget")
    register("attributes.outfit.previous_region", ["["], "Previous region", ao, "widget")
    register("attributes.outfit.next_image", ["J"], "Next image", ao, "widget")
    register("attributes.outfit.previous_image", ["K"], "Previous image", ao, "widget")
    register("attributes.outfit.box", ["B"], "Draw boxes", ao, "widget")
    register("attributes.outfit.polygon", ["P"], "Draw polygons", ao, "widget")
    register("attributes.outfit.select", ["S"], "Select regions", ao, "widget")
    register("attributes.outfit.category", ["C"], "Type the region's category", ao, "widget")
    register("attributes.outfit.region_attribute", ["A"], "Add an attribute to the region", ao,
             "widget")
    register("attributes.outfit.outfit_attribute", ["O"], "Add an attribute to the outfit", ao,
             "widget")
    register("attributes.outfit.accept_suggestions", ["Y"], "Accept the region's suggestions",
             ao, "widget")
    register("attributes.outfit.reject_suggestions", ["X"], "Reject the region's suggestions",
             ao, "widget")
    register("attributes.outfit.attach", ["G"], "Attach the region to the garment above", ao,
             "widget")
    register("attributes.outfit.delete", ["Delete"], "Delete the region", ao, "widget")
    register("attributes.outfit.escape", ["Esc"],
             "Drop the shape being drawn; from a text field, back to the picture", ao, "widget")
    register("attributes.outfit.canvas.close_polygon", ["Return", "Enter"],
             "Close the polygon being drawn", ac, "widget")
    register("attributes.outfit.canvas.zoom_in", ["+", "="], "Zoom in", ac, "widget")
    register("attributes.outfit.canvas.zoom_out", ["-"], "Zoom out", ac, "widget")
    register("attributes.outfit.canvas.fit", ["0"], "Fit the picture", ac, "widget")

    rt = "retrieval"
    for number in range(1, 10):
        register(f"retrieval.pick.{number}", [f"Alt+{number}"],
                 f"Make result {number} the next turn's reference", rt)
    register("retrieval.rollback", ["Ctrl+R"], "Go back to an earlier turn's item", rt)
    register("retrieval.combine", ["Ctrl+M"], "Keep something of an earlier turn", rt)
    register("retrieval.new_session", ["Ctrl+Shift+N"], "New session (a new secret target)", rt)

    qr = "quality.rating"
    for score in range(1, 6):
        register(f"quality.rating.score.{score}", [str(score)],
                 f"Score the highlighted criterion {score} and move on", qr)
    register("quality.rating.skip", ["S"], "Skip the turn", qr)
    register("quality.rating.flag", ["F"], "Flag the turn", qr)
    register("quality.rating.next_criterion", ["Down", "Right"], "Next criterion", qr, "widget")
    register("quality.rating.previous_criterion", ["Up", "Left"], "Previous criterion", qr,
             "widget")
    register("quality.rating.save", ["Return", "Enter"], "Save the scores and go on", qr,
             "widget")
    register("quality.draft.accept", ["Ctrl+Return", "Ctrl+Enter"],
             "Accept the drafted transaction", "quality.draft")


PANES = ("Pairs", "Captions", "Attributes", "Retrieval", "Quality", "Dashboard")
_declare()


# -- questions about the map --------------------------------------------------------------


def _scopes(name: str) -> list[str]:
    """The context and every context it lies in."""
    chain = []
    current: str | None = name
    while current is not None:
        chain.append(current)
        current = CONTEXTS[current].parent
    return chain


def live_together(first: Action, second: Action) -> bool:
    """Whether one key press could reach both: one's context lies in the other's."""
    return first.context in _scopes(second.context) or second.context in _scopes(first.context)


def combination(key: str) -> QKeyCombination:
    return QKeySequence(key)[0]


def clashes() -> list[tuple[Action, Action, str]]:
    """Pairs of actions that can be live together and share a key."""
    found = []
    listed = list(ACTIONS.values())
    for index, first in enumerate(listed):
        mine = {combination(key): key for key in first.keys}
        for second in listed[index + 1:]:
            if not live_together(first, second):
                continue
            for key in second.keys:
                if combination(key) in mine:
                    found.append((first, second, key))
    return found


def rows() -> list[tuple[str, str, str, str]]:
    """(pane, keys, what it does, where): the help table, grouped by pane in map order."""
    order = {pane: n for n, pane in enumerate(["Window", *PANES])}
    listed = sorted(ACTIONS.values(), key=lambda a: order[CONTEXTS[a.context].pane])
    return [(CONTEXTS[a.context].pane, a.shown_all, a.description, CONTEXTS[a.context].title)
            for a in listed]


def shortcuts_markdown() -> str:
    """The keyboard shortcuts as Markdown, one table per pane, for the manual."""
    parts: list[str] = []
    pane = None
    for group, keys, description, where in rows():
        if group != pane:
            pane = group
            parts += [*([""] if parts else []), f"## {group}", "",
                      "| Keys | What it does | Where |", "| --- | --- | --- |"]
        shown = " / ".join(f"`{key}`" for key in keys.split(" / "))
        parts.append(f"| {shown} | {description} | {where} |")
    return "\n".join(parts) + "\n"


# -- binding ------------------------------------------------------------------------------


def bind(
    owner: QWidget, action_id: str, slot: Callable[[], object], while_shown: bool = False
) -> list[QShortcut]:
    """The action's keys as shortcuts live while the focus is anywhere inside ``owner``
    or, ``while_shown``, whenever ``owner`` is on screen in the active window (a pane's
    session keys, which work with the focus in the navigation too)."""
    made = []
    scope = (Qt.ShortcutContext.WindowShortcut if while_shown
             else Qt.ShortcutContext.WidgetWithChildrenShortcut)
    for key in action(action_id).keys:
        shortcut = QShortcut(QKeySequence(key), owner)
        shortcut.setContext(scope)
        shortcut.activated.connect(slot)
        made.append(shortcut)
    return made


def sequences(action_id: str) -> list[QKeySequence]:
    """The action's keys, for a ``QAction.setShortcuts``."""
    return [QKeySequence(key) for key in action(action_id).keys]


def menu_action(
    menu: QMenu, parent: QWidget, text: str, action_id: str | None, slot: Callable[..., object]
) -> QAction:
    """A menu entry; with ``action_id`` its keys work wherever the window has focus."""
    made = QAction(text, parent)
    if action_id is not None:
        made.setShortcuts(sequences(action_id))
    made.triggered.connect(slot)
    menu.addAction(made)
    return made


def tooltip(action_id: str, text: str) -> str:
    """"Skip (Ctrl+K)": a button's tooltip naming its keys."""
    return f"{text} ({action(action_id).shown_all})"


def _plain(event: QKeyEvent) -> QKeyCombination:
    """The key pressed, without the keypad flag; Shift+Tab arrives as Backtab."""
    modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    key = Qt.Key(event.key())
    if key == Qt.Key.Key_Backtab:
        key, modifiers = Qt.Key.Key_Tab, modifiers | Qt.KeyboardModifier.ShiftModifier
    return QKeyCombination(modifiers, key)


class KeyMap:
    """Plain keys a widget handles while it has the focus (``bound_by="widget"``):
    ``KeyMap({"attributes.image.accept": slot, …}).handle(event)`` in ``keyPressEvent``.
    A symbol typed with Shift ("+" on most layouts) matches without it."""

    def __init__(self, slots: dict[str, Callable[[], object]]) -> None:
        self.slots: dict[QKeyCombination, Callable[[], object]] = {}
        for action_id, slot in slots.items():
            for key in action(action_id).keys:
                self.slots[combination(key)] = slot

    def slot_for(self, event: QKeyEvent) -> Callable[[], object] | None:
        pressed = _plain(event)
        slot = self.slots.get(pressed)
        shift = Qt.KeyboardModifier.ShiftModifier
        if slot is None and pressed.keyboardModifiers() == shift and not (
            Qt.Key.Key_A <= pressed.key() <= Qt.Key.Key_Z or pressed.key() == Qt.Key.Key_Tab
        ):
            slot = self.slots.get(QKeyCombination(pressed.key()))
        return slot

    def handle(self, event: QKeyEvent) -> bool:
        """Run the key's action; False (nothing done) for a key not in the map, or when the
        slot returns False (the key means nothing now: the widget around may take it)."""
        slot = self.slot_for(event)
        if slot is None or slot() is False:
            return False
        event.accept()
        return True


class KeyPassthrough(QObject):
    """Event filter: the watched text field lets these keys through to the shortcuts.

    A ``QLineEdit`` claims some key combinations for itself (Ctrl+K deletes to the end of
    the line on some platforms, Ctrl+Shift+Z is redo), so an action bound on the form
    around it would never fire while it has the focus."""

    def __init__(self, keys: Iterable[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.combinations = {QKeySequence(key)[0] for key in keys}

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            combination = event.keyCombination()
            plain = QKeySequence(
                combination.key()
                | combination.keyboardModifiers() & ~Qt.KeyboardModifier.KeypadModifier
            )[0]
            if combination in self.combinations or plain in self.combinations:
                event.ignore()
                return True
        return False
