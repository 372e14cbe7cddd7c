"""Qt views and the application shell. Widgets bind to studio objects; no SQL, no torch."""
