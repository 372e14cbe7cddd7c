"""Combiners on disk: ``NAME.safetensors`` (weights) + ``NAME.json`` (config), never pickle.

A folder holds the combiners of one embedding model; the JSON names that model's cache
key, and loading refuses a config of another model, whatever folder it was copied into.
The weights are written first and the JSON last, each through a temporary file and a
rename, so a combiner is listed only once it is whole.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from backends.combiner.model import Combiner, CombinerConfig, CombinerError, build_module

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name or ""):
        raise CombinerError(
            f"'{name}' cannot name a combiner: use up to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit."
        )
    return name


def config_path(folder: Path, name: str) -> Path:
    return Path(folder) / f"{check_name(name)}.json"


def weights_path(folder: Path, name: str) -> Path:
    return Path(folder) / f"{check_name(name)}.safetensors"


def save_combiner(combiner: Combiner, folder: Path) -> Path:
    """Write the combiner into ``folder``; returns its JSON path. Replaces one of that name."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = combiner.config.name
    weights, config = weights_path(folder, name), config_path(folder, name)
    tmp_weights = weights.with_name(f".{weights.name}.partial")
    tmp_config = config.with_name(f".{config.name}.partial")
    save_file(combiner.state_dict(), str(tmp_weights), metadata={"format": "cir-studio-combiner"})
    tmp_config.write_text(json.dumps(combiner.config.to_json(), indent=2), encoding="utf-8")
    if config.exists():
        config.unlink()  # never a JSON that points at other weights
    os.replace(tmp_weights, weights)
    os.replace(tmp_config, config)
    return config


def read_config(path: Path) -> CombinerConfig:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CombinerError(f"{path} does not exist.") from None
    except (OSError, ValueError) as error:
        raise CombinerError(f"{path} is not readable JSON ({error}).") from None
    return CombinerConfig.from_json(data, str(path))


def list_configs(folder: Path) -> list[CombinerConfig]:
    """Every whole combiner in ``folder`` (malformed files are left out), by name."""
    return [config for _, config in list_saved(folder)]


def list_saved(folder: Path) -> list[tuple[Path, CombinerConfig]]:
    """(JSON path, config) of every whole combiner in ``folder``, by name."""
    found = []
    for path in sorted(Path(folder).glob("*.json")) if Path(folder).is_dir() else []:
        try:
            config = read_config(path)
        except CombinerError:
            continue
        if (path.with_suffix(".safetensors")).is_file():
            found.append((path, config))
    return found


def load_combiner(folder: Path, name: str, embedding_key: str, device: str = "cpu") -> Combiner:
    """Load combiner ``name`` for the embedding model whose cache key is ``embedding_key``."""
    from safetensors.torch import load_file

    path = config_path(folder, name)
    if not path.is_file():
        raise CombinerError(f"There is no combiner '{name}' in {folder}.")
    config = read_config(path)
    if config.embedding_key != embedding_key:
        raise CombinerError(
            f"Combiner '{name}' ({path}) was trained on embedding model "
            f"'{config.embedding_model}' (weights {config.embedding_key}), not on the model in "
            f"use (weights {embedding_key}); train one for this model."
        )
    weights = weights_path(folder, name)
    module = build_module(config)
    try:
        state = load_file(str(weights), device="cpu")
        module.load_state_dict(state)
    except FileNotFoundError:
        raise CombinerError(f"{weights} is missing; train combiner '{name}' again.") from None
    except Exception as error:  # a damaged or mismatched file: say which
        raise CombinerError(f"{weights} cannot be loaded ({error}).") from None
    return Combiner(config, module, device)
