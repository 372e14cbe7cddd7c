"""Repositories, one module per aggregate (see ``studio.store``'s docstring for the layout).

Import the module you need: ``from studio.store.repos import captions as captions_repo``.
"""
