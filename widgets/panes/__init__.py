"""The studio's panes, one per file; ``main_window`` lists them in navigation order."""
