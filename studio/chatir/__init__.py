"""ChatIR: dialogue files of several questioners, a search space, and its Hits@10 protocol."""
