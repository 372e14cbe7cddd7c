"""A CLIP4Cir-style Combiner: composes frozen image and text features into one query.

Arrays in, arrays out; it knows nothing of projects. ``model`` holds the network and its
config, ``storage`` saves and loads it as safetensors plus a JSON config (never pickle),
``train`` fits it with a contrastive loss. torch is imported inside the functions.
"""

from backends.combiner.model import Combiner, CombinerConfig, CombinerError

__all__ = ["Combiner", "CombinerConfig", "CombinerError"]
