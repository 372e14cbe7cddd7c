"""Team work: assignments, work packages, merging them back (see README, "Team work")."""
