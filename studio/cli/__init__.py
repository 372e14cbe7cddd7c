"""The command line: ``cir-studio`` opens the GUI or runs a headless subcommand."""
