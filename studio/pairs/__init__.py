"""Image pairs: mining references for targets, and queries for the pair browser."""
