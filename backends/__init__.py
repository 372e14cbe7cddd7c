"""The Qt-free machine-learning and search layer of CIR Studio.

It takes arrays, images and paths and knows nothing of projects or SQLite. Heavy libraries
(torch, open_clip, transformers, faiss) are imported inside the functions that use them, so
``import backends`` costs nothing and the CLI's ``--help`` stays instant.
"""

from backends.errors import ModelUnavailable

__all__ = ["ModelUnavailable"]
