"""The combiners a project has trained, as retrieval finds and loads them.

``make_strategy`` asks :class:`ProjectCombiners` when it meets ``combiner:NAME``; training
(``studio.training.combiner``) writes into the same folders.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.embeddings import model_slug
from studio.errors import StudioError
from studio.store import Project

if TYPE_CHECKING:
    from backends.combiner.model import Combiner
    from backends.models.base import EmbeddingModel

COMBINERS_DIR = "combiners"


def combiner_root(project: Project) -> Path:
    return project.cache_dir / COMBINERS_DIR


def combiner_folder(project: Project, model: EmbeddingModel) -> Path:
    return combiner_root(project) / model_slug(model.cache_key)


class ProjectCombiners:
    """The combiners trained for one embedding model: names, and loading by name (cached).

    This is what ``make_strategy`` asks when it meets ``combiner:NAME``.
    """

    def __init__(self, project: Project, model: EmbeddingModel, device: str = "cpu") -> None:
        self.folder = combiner_folder(project, model)
        self.model = model
        self.device = device
        self._loaded: dict[str, Combiner] = {}

    def names(self) -> list[str]:
        from backends.combiner.storage import list_configs

        return [config.name for config in list_configs(self.folder)]

    def load(self, name: str) -> Combiner:
        from backends.combiner.model import CombinerError
        from backends.combiner.storage import load_combiner

        if name not in self._loaded:
            try:
                self._loaded[name] = load_combiner(
                    self.folder, name, self.model.cache_key, self.device
                )
            except CombinerError as error:
                raise StudioError(str(error)) from None
        return self._loaded[name]
